/**
 * The webhook outbox conformance suite: every WebhookOutbox backend runs
 * these from a few-line test file. Enqueue (idempotent on id), claims that
 * hand each due delivery to one caller and lease it, attempts recorded only
 * under the caller's lease, retry and failure outcomes, replay, listing with
 * filters and paging, tenants apart.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryAttempt, NewDelivery, WebhookOutbox } from "../../../../hub/review/webhooks/outbox.ts";
import { MAX_ATTEMPTS_KEPT } from "../../../../hub/review/webhooks/outbox.ts";

export interface WebhookOutboxFixture {
  outbox: WebhookOutbox;
  /** A second handle on the same data (another connection or node), when the backend has one. */
  other?: () => Promise<WebhookOutbox>;
  dispose(): Promise<void>;
}

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number): string => new Date(ms).toISOString();

function delivery(id: string, over: Partial<NewDelivery> = {}): NewDelivery {
  return { id, eventId: `msg_${id}`, tenant: "acme", endpointId: "hook", type: "input.requested", body: JSON.stringify({ type: "input.requested", data: { id, text: "é \u0000 🚀" } }), ...over };
}

function attempt(ok: boolean, at = T0): DeliveryAttempt {
  return { at: iso(at), ok, responseStatus: ok ? 200 : 500, error: ok ? null : "HTTP 500", durationMs: 3, node: "n1" };
}

/** `shared`: the backend has a second handle on the same data (`fixture.other`), so the claim race runs. */
export function describeWebhookOutboxConformance(name: string, make: () => Promise<WebhookOutboxFixture>, shared = true): void {
  describe(`webhook outbox conformance: ${name}`, () => {
    let fixture: WebhookOutboxFixture;
    const outbox = (): WebhookOutbox => fixture.outbox;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("enqueues pending deliveries due now, keeps the body byte for byte, ignores a known id", async () => {
      await outbox().enqueue([delivery("d1"), delivery("d2")], T0);
      await outbox().enqueue([delivery("d1", { body: "changed" })], T0 + 5);
      const list = await outbox().list({ tenant: "acme", limit: 10 });
      expect(list.map((d) => [d.id, d.status, d.tries, d.nextAttemptAt])).toEqual([["d1", "pending", 0, iso(T0)], ["d2", "pending", 0, iso(T0)]]);
      expect(list[0]).toMatchObject({ eventId: "msg_d1", tenant: "acme", endpointId: "hook", type: "input.requested", body: delivery("d1").body, attempts: [], createdAt: iso(T0) });
      expect(list[0]!.seq).toBeLessThan(list[1]!.seq);
      expect(await outbox().nextDue()).toBe(iso(T0));
    });

    it("a claim hands each due delivery to one caller and leases it; not-yet-due ones wait", async () => {
      await outbox().enqueue([delivery("d1"), delivery("d2"), delivery("d3")], T0);
      const first = await outbox().claimDue(T0, 2, 60_000, "lease-a");
      expect(first.map((d) => d.id)).toEqual(["d1", "d2"]);
      expect(first[0]?.nextAttemptAt).toBe(iso(T0 + 60_000));
      const second = await outbox().claimDue(T0, 10, 60_000, "lease-b");
      expect(second.map((d) => d.id)).toEqual(["d3"]);
      expect(await outbox().claimDue(T0 + 1000, 10, 60_000, "lease-c")).toEqual([]);
      expect(await outbox().nextDue()).toBe(iso(T0 + 60_000));
      // A lapsed lease (the node died): the delivery is due again, for someone else.
      const retaken = await outbox().claimDue(T0 + 60_000, 10, 60_000, "lease-d");
      expect(retaken.map((d) => d.id).sort()).toEqual(["d1", "d2", "d3"]);
      expect(await outbox().recordAttempt("d1", "lease-a", attempt(true), { status: "delivered", nextAttemptAt: null }, T0 + 60_001)).toBe(false);
      expect(await outbox().recordAttempt("d1", "lease-d", attempt(true), { status: "delivered", nextAttemptAt: null }, T0 + 60_001)).toBe(true);
    });

    it("records attempts under the lease: a retry is due at its time, a delivery is final, a failed one waits for a replay", async () => {
      await outbox().enqueue([delivery("d1")], T0);
      const [claimed] = await outbox().claimDue(T0, 1, 60_000, "l1");
      expect(claimed?.id).toBe("d1");
      expect(await outbox().recordAttempt("d1", "l1", attempt(false), { status: "pending", nextAttemptAt: iso(T0 + 2000) }, T0 + 10)).toBe(true);
      // The lease is spent: a second record under it is refused.
      expect(await outbox().recordAttempt("d1", "l1", attempt(false), { status: "pending", nextAttemptAt: iso(T0 + 2000) }, T0 + 11)).toBe(false);
      expect(await outbox().get("acme", "d1")).toMatchObject({ status: "pending", tries: 1, nextAttemptAt: iso(T0 + 2000), attempts: [attempt(false)] });
      expect(await outbox().claimDue(T0 + 1999, 1, 60_000, "l2")).toEqual([]);
      await outbox().claimDue(T0 + 2000, 1, 60_000, "l2");
      await outbox().recordAttempt("d1", "l2", attempt(false, T0 + 2000), { status: "failed", nextAttemptAt: null }, T0 + 2001);
      expect(await outbox().get("acme", "d1")).toMatchObject({ status: "failed", tries: 2, nextAttemptAt: null });
      expect(await outbox().claimDue(T0 + 99_999_999, 10, 60_000, "l3")).toEqual([]);
      expect(await outbox().nextDue()).toBeNull();

      const replayed = await outbox().replay("acme", "d1", T0 + 5000);
      expect(replayed).toMatchObject({ status: "pending", tries: 0, nextAttemptAt: iso(T0 + 5000) });
      expect(replayed?.attempts).toHaveLength(2);
      await outbox().claimDue(T0 + 5000, 1, 60_000, "l4");
      await outbox().recordAttempt("d1", "l4", attempt(true, T0 + 5000), { status: "delivered", nextAttemptAt: null }, T0 + 5001);
      const done = await outbox().get("acme", "d1");
      expect(done).toMatchObject({ status: "delivered", tries: 1 });
      expect(done?.attempts.map((a) => a.ok)).toEqual([false, false, true]);
      // Only a failed delivery is replayed; another tenant's is unknown.
      expect(await outbox().replay("acme", "d1", T0 + 6000)).toMatchObject({ status: "delivered" });
      expect(await outbox().replay("globex", "d1", T0 + 6000)).toBeUndefined();
      expect(await outbox().replay("acme", "nope", T0 + 6000)).toBeUndefined();
    });

    it("prunes settled deliveries last updated before the cutoff, oldest first, a batch at a time; never a pending one", async () => {
      await outbox().enqueue([delivery("old-ok"), delivery("old-failed"), delivery("old-pending"), delivery("new-ok")], T0);
      await outbox().claimDue(T0, 10, 60_000, "l");
      await outbox().recordAttempt("old-ok", "l", attempt(true), { status: "delivered", nextAttemptAt: null }, T0 + 1);
      await outbox().recordAttempt("old-failed", "l", attempt(false), { status: "failed", nextAttemptAt: null }, T0 + 2);
      await outbox().recordAttempt("old-pending", "l", attempt(false), { status: "pending", nextAttemptAt: iso(T0 + 10) }, T0 + 3);
      await outbox().recordAttempt("new-ok", "l", attempt(true), { status: "delivered", nextAttemptAt: null }, T0 + 1_000);
      expect(await outbox().prune(T0 + 500, 1)).toBe(1);
      expect((await outbox().list({ tenant: "acme", limit: 10 })).map((d) => d.id)).toEqual(["old-failed", "old-pending", "new-ok"]);
      expect(await outbox().prune(T0 + 500, 10)).toBe(1);
      expect(await outbox().prune(T0 + 500, 10)).toBe(0);
      expect((await outbox().list({ tenant: "acme", limit: 10 })).map((d) => d.id)).toEqual(["old-pending", "new-ok"]);
      // However old, a pending delivery stays: it has yet to go out.
      expect(await outbox().prune(T0 + 10 * 365 * 86_400_000, 10)).toBe(1);
      expect((await outbox().list({ tenant: "acme", limit: 10 })).map((d) => [d.id, d.status])).toEqual([["old-pending", "pending"]]);
      expect(await outbox().nextDue()).toBe(iso(T0 + 10));
    });

    it("keeps the last attempts when there are very many", async () => {
      await outbox().enqueue([delivery("d1")], T0);
      for (let i = 0; i < MAX_ATTEMPTS_KEPT + 3; i++) {
        await outbox().claimDue(T0 + i, 1, 1, `l${i}`);
        await outbox().recordAttempt("d1", `l${i}`, attempt(false, T0 + i), { status: "pending", nextAttemptAt: iso(T0 + i + 1) }, T0 + i);
      }
      const d = await outbox().get("acme", "d1");
      expect(d?.tries).toBe(MAX_ATTEMPTS_KEPT + 3);
      expect(d?.attempts).toHaveLength(MAX_ATTEMPTS_KEPT);
      expect(d?.attempts[0]?.at).toBe(iso(T0 + 3));
    });

    it("lists one tenant's deliveries by status and endpoint, in pages", async () => {
      await outbox().enqueue([delivery("a1"), delivery("a2", { endpointId: "other" }), delivery("a3"), delivery("g1", { tenant: "globex" })], T0);
      await outbox().claimDue(T0, 1, 1000, "l");
      await outbox().recordAttempt("a1", "l", attempt(true), { status: "delivered", nextAttemptAt: null }, T0);
      expect((await outbox().list({ tenant: "acme", limit: 10 })).map((d) => d.id)).toEqual(["a1", "a2", "a3"]);
      expect((await outbox().list({ tenant: "acme", status: "pending", limit: 10 })).map((d) => d.id)).toEqual(["a2", "a3"]);
      expect((await outbox().list({ tenant: "acme", endpointId: "hook", limit: 10 })).map((d) => d.id)).toEqual(["a1", "a3"]);
      const page1 = await outbox().list({ tenant: "acme", limit: 2 });
      const page2 = await outbox().list({ tenant: "acme", limit: 2, after: page1.at(-1)!.seq });
      expect([...page1, ...page2].map((d) => d.id)).toEqual(["a1", "a2", "a3"]);
      expect((await outbox().list({ tenant: "globex", limit: 10 })).map((d) => d.id)).toEqual(["g1"]);
      expect(await outbox().get("globex", "a1")).toBeUndefined();
    });

    it("keeps REST-managed endpoints per tenant: create, replace (createdAt kept), list, delete", async () => {
      const e = { tenant: "acme", id: "hook", url: "https://a.example/x", secret: "whsec_" + "A".repeat(44), events: ["input.requested"], queues: null, answerLinks: true, createdAt: "", updatedAt: "" };
      const created = await outbox().putEndpoint(e, T0);
      expect(created).toEqual({ ...e, createdAt: iso(T0), updatedAt: iso(T0) });
      await outbox().putEndpoint({ ...e, tenant: "globex" }, T0);
      const replaced = await outbox().putEndpoint({ ...e, url: "https://b.example/y", events: null, queues: ["ops"], answerLinks: false }, T0 + 10);
      expect(replaced).toEqual({ ...e, url: "https://b.example/y", events: null, queues: ["ops"], answerLinks: false, createdAt: iso(T0), updatedAt: iso(T0 + 10) });
      expect((await outbox().listEndpoints("acme")).map((x) => x.url)).toEqual(["https://b.example/y"]);
      expect((await outbox().listEndpoints()).map((x) => [x.tenant, x.id])).toEqual([["acme", "hook"], ["globex", "hook"]]);
      expect(await outbox().deleteEndpoint("acme", "hook")).toBe(true);
      expect(await outbox().deleteEndpoint("acme", "hook")).toBe(false);
      expect((await outbox().listEndpoints()).map((x) => x.tenant)).toEqual(["globex"]);
    });

    it.runIf(shared)("two handles on the same data never claim the same delivery", async () => {
      if (!fixture.other) throw new Error("a shared backend's fixture needs other()");
      const other = await fixture.other();
      const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
      await outbox().enqueue(ids.map((id) => delivery(id)), T0);
      const claims = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => (i % 2 === 0 ? outbox() : other).claimDue(T0, 7, 60_000, `lease-${i}`)));
      const taken = claims.flat().map((d) => d.id);
      expect(new Set(taken).size).toBe(taken.length);
      expect(taken.sort()).toEqual([...ids].sort());
    });
  });
}
