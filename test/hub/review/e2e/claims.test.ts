/**
 * Claims (lease, release, lapse), item expiry with and without a default
 * response, cancellation with the run, and the audit trail. Short TTLs are
 * awaited with vi.waitFor: no sleeps, no timing asserts.
 */
import { describe, expect, it, vi } from "vitest";
import type { ProtocolEvent } from "../../../../hub/protocol/index.ts";
import { REVIEWER, WAIT, authHeaders, isRootLifecycle, itemStatus, ok, openAs, reviewHub, startAndWait } from "./helpers.ts";
import { internalsOf } from "../../../../hub/hub.ts";

const byMethod = (method: string) => (e: ProtocolEvent): boolean => e.method === method;

async function auditOf(url: string, id: string): Promise<{ status: string; audit: Array<{ kind: string; by?: { sub: string }; reason?: string; detail?: unknown }> }> {
  const res = await fetch(`${url}/reviews/${id}`, { headers: await authHeaders("olga", ["observer"]) });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; audit: Array<{ kind: string; by?: { sub: string }; reason?: string }> };
}

describe("claims and expiry", () => {
  it("claim: others see input.claimed and get claim_held; release frees it; an override role answers over a claim", async () => {
    const hub = await reviewHub();
    const threadId = "claim-1";
    const { operator, ids } = await startAndWait(hub, threadId, "gate", {});
    const [id] = ids;
    const ann = await openAs(hub, "ann", REVIEWER);
    const bob = await openAs(hub, "bob", REVIEWER);
    await bob.subscribe({ channels: ["input"] }, { thread_id: threadId });

    const claimed = ok(await ann.request("input.claim", { interrupt_id: id, ttl_ms: 60_000 }, { thread_id: threadId }));
    expect(claimed).toMatchObject({ interrupt_id: id, expires_at: expect.any(Number) });
    const seen = await bob.waitForEvent(byMethod("input.claimed"));
    expect(seen.params.data).toMatchObject({ interrupt_id: id, claimed_by: { sub: "ann" } });
    const held = await bob.request("input.respond", { namespace: [], interrupt_id: id, response: "mine" }, { thread_id: threadId });
    expect(held).toMatchObject({ type: "error", error: "claim_held", details: { claimed_by: { sub: "ann" } } });
    expect(await bob.request("input.claim", { interrupt_id: id }, { thread_id: threadId })).toMatchObject({ type: "error", error: "claim_held" });
    expect(await bob.request("input.release", { interrupt_id: id }, { thread_id: threadId })).toMatchObject({ type: "error", error: "permission_denied" });

    ok(await ann.request("input.release", { interrupt_id: id }, { thread_id: threadId }));
    const released = await bob.waitForEvent(byMethod("input.released"));
    expect(released.params.data).toMatchObject({ interrupt_id: id, released_by: { sub: "ann" } });
    expect(await itemStatus(hub, id!)).toBe("open");

    ok(await bob.request("input.claim", { interrupt_id: id }, { thread_id: threadId }));
    const boss = await openAs(hub, "boss", [...REVIEWER, "review-admin"]);
    expect(ok(await boss.request("input.respond", { namespace: [], interrupt_id: id, response: "override" }, { thread_id: threadId }))).toMatchObject({ resumed: true });
    await operator.waitForEvent(isRootLifecycle("completed"));

    const { audit } = await auditOf(hub.url, id!);
    // bob's refused answer is on the record with its code (refused claims and releases are not answers).
    expect(audit.map((a) => [a.kind, a.by?.sub, a.reason])).toEqual([
      ["requested", undefined, undefined],
      ["claimed", "ann", undefined],
      ["rejected", "bob", "claim_held"],
      ["released", "ann", undefined],
      ["claimed", "bob", undefined],
      ["answered", "boss", undefined],
    ]);
    expect(audit.map((a) => a.kind)).toEqual(expect.arrayContaining(["requested", "claimed", "rejected", "released", "answered"]));
    expect(audit.find((a) => a.kind === "answered")?.by?.sub).toBe("boss");
    expect(audit.filter((a) => a.kind === "rejected").every((a) => a.by?.sub === "bob")).toBe(true);
  });

  it("a lapsed claim frees the item (input.released to the thread) and the audit says claim_expired", async () => {
    const hub = await reviewHub();
    const threadId = "claim-lapse";
    const { operator, ids } = await startAndWait(hub, threadId, "gate", {});
    const ann = await openAs(hub, "ann", REVIEWER);
    ok(await ann.request("input.claim", { interrupt_id: ids[0], ttl_ms: 50 }, { thread_id: threadId }));
    const released = await operator.waitForEvent(byMethod("input.released"));
    expect(released.params.data).toMatchObject({ interrupt_id: ids[0], released_by: { sub: "ann" } });
    await vi.waitFor(async () => expect(await itemStatus(hub, ids[0]!)).toBe("open"), WAIT);
    const { audit } = await auditOf(hub.url, ids[0]!);
    expect(audit.map((a) => a.kind)).toEqual(["requested", "claimed", "claim_expired"]);
  });

  it("item expiry with an onExpire default resumes the run with it; the audit says so", async () => {
    const hub = await reviewHub();
    const threadId = "expire-default";
    const { operator, ids } = await startAndWait(hub, threadId, "gate", { review: { expiresIn: 100, onExpire: { response: "auto-approved" } } });
    const expired = await operator.waitForEvent(byMethod("input.expired"));
    expect(expired.params.data).toMatchObject({ interrupt_id: ids[0], action: "default_response" });
    await operator.waitForEvent(isRootLifecycle("completed"));
    const values = ok(await operator.request("state.get", { namespace: [] }, { thread_id: threadId }))["values"];
    expect(values).toMatchObject({ answer: "auto-approved", done_calls: 1 });
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(2);
    const { status, audit } = await auditOf(hub.url, ids[0]!);
    expect(status).toBe("expired");
    expect(audit.map((a) => a.kind)).toEqual(["requested", "expired"]);
    const rita = await openAs(hub, "rita", REVIEWER);
    expect(await rita.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "late" }, { thread_id: threadId })).toMatchObject({ type: "error", error: "interrupt_expired" });
  });

  it("item expiry without a default: the item expires, the run stays interrupted, answers get interrupt_expired", async () => {
    const hub = await reviewHub({ review: { expiresIn: 100 } });
    const threadId = "expire-none";
    const { operator, ids } = await startAndWait(hub, threadId, "gate", {});
    const expired = await operator.waitForEvent(byMethod("input.expired"));
    expect(expired.params.data).toMatchObject({ interrupt_id: ids[0], action: "none" });
    expect(await itemStatus(hub, ids[0]!)).toBe("expired");
    const rita = await openAs(hub, "rita", REVIEWER);
    expect(await rita.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "late" }, { thread_id: threadId })).toMatchObject({ type: "error", error: "interrupt_expired" });
    // Nor can an operator slip the answer in as run input: that would skip review.
    expect(await operator.request("run.start", { assistant_id: "gate", input: "late" }, { thread_id: threadId })).toMatchObject({
      type: "error",
      error: "invalid_argument",
    });
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(1);
    expect(internalsOf(hub).reviews.timerArmed).toBe(false);
  });

  it("items of a run that ends without them are cancelled and announced with input.cancelled; answers get interrupt_cancelled", async () => {
    const hub = await reviewHub();
    const threadId = "cancelled-1";
    const { operator, ids } = await startAndWait(hub, threadId, "gate", { review: { queue: "legal" } });
    // A reviewer following the thread, and one following the queue only.
    const bob = await openAs(hub, "bob", REVIEWER);
    await bob.subscribe({ channels: ["input"] }, { thread_id: threadId });
    const carol = await openAs(hub, "carol", REVIEWER);
    expect(ok(await carol.request("queue.subscribe", { queue: "legal" }))).toMatchObject({ items: 1 });
    // An operator forks from the first checkpoint: the interrupted question is void.
    const checkpoints = ok(await operator.request("state.listCheckpoints", {}, { thread_id: threadId }))["checkpoints"] as Array<{ id: string }>;
    const forked = ok(await operator.request("state.fork", { checkpoint_id: checkpoints.at(-1)!.id, input: { review: { users: ["nobody"] } } }, { thread_id: threadId }));
    await vi.waitFor(() => expect(operator.events.filter(isRootLifecycle("interrupted"))).toHaveLength(2), WAIT);
    await vi.waitFor(async () => expect(await itemStatus(hub, ids[0]!)).toBe("cancelled"), WAIT);

    for (const socket of [operator, bob, carol]) {
      const cancelled = await socket.waitForEvent(byMethod("input.cancelled"));
      expect(cancelled).toMatchObject({
        thread_id: threadId,
        params: { data: { interrupt_id: ids[0], cancelled_at: expect.any(Number), reason: `replaced by run ${String(forked["run_id"])}` } },
      });
      expect(socket.events.filter(byMethod("input.cancelled"))).toHaveLength(1);
    }
    // The thread's copy carries its log seq; the queue's copy names the queue.
    expect(bob.events.find(byMethod("input.cancelled"))).toMatchObject({ seq: expect.any(Number) });
    expect(carol.events.find(byMethod("input.cancelled"))).toMatchObject({ queue: "legal" });

    const rita = await openAs(hub, "rita", REVIEWER);
    expect(await rita.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "late" }, { thread_id: threadId })).toMatchObject({ type: "error", error: "interrupt_cancelled" });
    // A new subscriber's replay no longer lists the withdrawn question as pending.
    const late = await openAs(hub, "lena", REVIEWER);
    await late.subscribe({ channels: ["input"] }, { thread_id: threadId });
    await vi.waitFor(() => expect(late.events.some(byMethod("input.requested"))).toBe(true), WAIT);
    expect(late.events.filter(byMethod("input.requested")).map((e) => (e.params.data as { interrupt_id: string }).interrupt_id)).not.toContain(ids[0]);
  });
});
