/**
 * Webhooks end to end: a real hub, real receivers (node:http) that verify
 * every signature with the Standard Webhooks library, the outbox's retries,
 * every attempt on REST, replay of a failed delivery, a hanging receiver
 * timed out, and a receiver that answers through POST /commands — routed
 * like any answer (a non-candidate is refused, a candidate wins).
 */
import { describe, expect, it, vi } from "vitest";
import type { HubConfig } from "../../../../hub/index.ts";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { REVIEWER, authHeaders, openAs, reviewHub, startAndWait, WAIT } from "../e2e/helpers.ts";
import { internalsOf } from "../../../../hub/hub.ts";
import { onCleanup } from "../../../support/cleanup.ts";
import { startReceiver, type Received, type Respond } from "./receiver.ts";

type RunningHub = Awaited<ReturnType<typeof reviewHub>>;

async function hookedHub(url: string, secret: string, webhooks: Partial<NonNullable<HubConfig["webhooks"]>> = {}, config: HubConfig = {}): Promise<RunningHub> {
  let hub: RunningHub | undefined;
  // Registered first: runs after the hub's own cleanup closed it.
  onCleanup(() => expect(hub && internalsOf(hub).webhooks.dispatcher?.timerArmed).toBe(false));
  return (hub = await reviewHub({ ...config, webhooks: { endpoints: [{ id: "ops-hook", url, secret, tenant: "acme" }], retryBaseMs: 20, retryMaxMs: 100, ...webhooks } }));
}

async function rest(hub: RunningHub, path: string, sub = "ada", roles: readonly string[] = ["admin"], init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${hub.url}${path}`, { ...init, headers: { ...(await authHeaders(sub, roles)), "content-type": "application/json" } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const ofType = (list: Received[], type: string): Received[] => list.filter((r) => r.type === type);

describe("webhooks", () => {
  it("signed events reach a receiver that verifies them with standardwebhooks; it answers through POST /commands, through the item's routing", async () => {
    const secret = newSecret();
    const receiver = await startReceiver(secret);
    const hub = await hookedHub(receiver.url, secret);
    const { ids: [id] } = await startAndWait(hub, "wh-1", "gate", { review: { queue: "ops", users: ["rita"] } });

    await vi.waitFor(() => expect(ofType(receiver.accepted, "input.requested")).toHaveLength(1), WAIT);
    const [requested] = ofType(receiver.received, "input.requested");
    expect(requested?.verified).toBe(true);
    expect(requested?.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(requested?.body).toMatchObject({ type: "input.requested", timestamp: expect.any(String), data: { tenant: "acme", thread_id: "wh-1", queue: "ops", interrupt_id: id, payload: { question: "ok?" } } });

    // The receiver answers as a bot that is not a candidate: refused like anyone else.
    const command = (response: unknown) => ({ id: 1, method: "input.respond", params: { namespace: [], interrupt_id: requested?.data["interrupt_id"], response } });
    const asBot = await fetch(`${hub.url}/threads/wh-1/commands`, { method: "POST", headers: { ...(await authHeaders("hookbot", REVIEWER)), "content-type": "application/json" }, body: JSON.stringify(command("from the bot")) });
    expect(await asBot.json()).toMatchObject({ type: "error", error: "permission_denied" });
    // With the candidate's credentials (a chat integration acting for rita), it wins and the run resumes.
    const asRita = await fetch(`${hub.url}/threads/wh-1/commands`, { method: "POST", headers: { ...(await authHeaders("rita", REVIEWER)), "content-type": "application/json" }, body: JSON.stringify(command("approved in chat")) });
    expect(await asRita.json()).toMatchObject({ type: "success", result: { resumed: true } });

    await vi.waitFor(() => expect(ofType(receiver.accepted, "run.completed")).toHaveLength(1), WAIT);
    const [answered] = ofType(receiver.accepted, "input.answered");
    expect(answered?.data).toMatchObject({ interrupt_id: id, answered_by: { sub: "rita" }, queue: "ops" });
    expect(ofType(receiver.accepted, "run.completed")[0]?.data).toMatchObject({ thread_id: "wh-1", status: "completed" });
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    // Not in the default filter: claims, and the first run's interrupted end.
    expect(receiver.received.map((r) => r.type).sort()).toEqual(["input.answered", "input.requested", "run.completed"]);
  });

  it("transformEvent shapes webhook bodies as it shapes the thread's events: a redacted payload, a dropped event never sent", async () => {
    const secret = newSecret();
    const receiver = await startReceiver(secret);
    const hub = await hookedHub(receiver.url, secret, {}, {
      transformEvent: (event) => {
        if (event.method === "input.answered") return null;
        if (event.method !== "input.requested") return event;
        const payload = event.params.data.payload as Record<string, unknown>;
        return { ...event, params: { ...event.params, data: { ...event.params.data, payload: { ...payload, question: "[redacted]" } } } };
      },
    });
    const { ids: [id] } = await startAndWait(hub, "wh-redact", "gate", { review: { queue: "ops" } });
    await vi.waitFor(() => expect(ofType(receiver.accepted, "input.requested")).toHaveLength(1), WAIT);
    expect(ofType(receiver.accepted, "input.requested")[0]?.data).toMatchObject({ interrupt_id: id, payload: { question: "[redacted]" } });
    const answer = await fetch(`${hub.url}/reviews/${id}/answer`, { method: "POST", headers: { ...(await authHeaders("rita", REVIEWER)), "content-type": "application/json" }, body: JSON.stringify({ response: "ok" }) });
    expect(answer.status).toBe(200);
    await vi.waitFor(() => expect(ofType(receiver.accepted, "run.completed")).toHaveLength(1), WAIT);
    expect(receiver.received.map((r) => r.type).sort()).toEqual(["input.requested", "run.completed"]);
    expect(JSON.stringify(receiver.received.map((r) => r.body))).not.toContain("ok?");
  });

  it("a receiver that fails three times gets the event once, on the fourth try; REST lists every attempt, admins only, one tenant", async () => {
    const secret = newSecret();
    const tries = new Map<string, number>();
    const respond: Respond = (r) => {
      const n = (tries.get(r.id) ?? 0) + 1;
      tries.set(r.id, n);
      return n <= 3 ? 500 : 200;
    };
    const receiver = await startReceiver(secret, respond);
    const hub = await hookedHub(receiver.url, secret, { endpoints: [{ id: "ops-hook", url: receiver.url, secret, tenant: "acme", events: ["input.requested"] }] });
    await startAndWait(hub, "wh-retry", "gate", {});

    await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
    const eventId = receiver.accepted[0]?.id;
    expect(receiver.received.map((r) => r.id)).toEqual([eventId, eventId, eventId, eventId]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);

    const list = await rest(hub, "/webhooks/deliveries?endpoint=ops-hook");
    expect(list.status).toBe(200);
    const deliveries = list.body["deliveries"] as Array<Record<string, unknown>>;
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries;
    expect(delivery).toMatchObject({ webhook_id: eventId, endpoint: "ops-hook", type: "input.requested", status: "delivered", tries: 4, next_attempt_at: null });
    const attempts = delivery?.["attempts"] as Array<Record<string, unknown>>;
    expect(attempts.map((a) => [a["ok"], a["response_status"]])).toEqual([[false, 500], [false, 500], [false, 500], [true, 200]]);
    expect(attempts[0]?.["error"]).toBe("HTTP 500: receiver says 500");
    expect(attempts.every((a) => typeof a["duration_ms"] === "number" && typeof a["node"] === "string")).toBe(true);
    expect((await rest(hub, `/webhooks/deliveries/${String(delivery?.["delivery_id"])}`)).body).toMatchObject({ tries: 4, status: "delivered" });
    expect((await rest(hub, "/webhooks/deliveries?status=failed")).body["deliveries"]).toEqual([]);

    expect((await rest(hub, "/webhooks/deliveries", "rita", REVIEWER)).status).toBe(403);
    const other = await fetch(`${hub.url}/webhooks/deliveries`, { headers: await authHeaders("ada", ["admin"], "globex") });
    expect(await other.json()).toEqual({ deliveries: [], next_after: null });
    expect((await rest(hub, `/webhooks/deliveries/${String(delivery?.["delivery_id"])}`, "ada", ["admin"], {})).status).toBe(200);
    const otherOne = await fetch(`${hub.url}/webhooks/deliveries/${String(delivery?.["delivery_id"])}`, { headers: await authHeaders("ada", ["admin"], "globex") });
    expect(otherOne.status).toBe(404);
    expect((await rest(hub, "/webhooks/deliveries?status=nope")).status).toBe(400);
    expect((await rest(hub, "/webhooks/endpoints")).body).toEqual({ endpoints: [{ id: "ops-hook", url: receiver.url, tenant: "acme", events: ["input.requested"], managed: "config" }] });
  });

  it("a delivery that ran out of tries is failed; replay sends it again with the same webhook-id; only a failed one is replayed", async () => {
    const secret = newSecret();
    let up = false;
    const receiver = await startReceiver(secret, () => (up ? 204 : 503));
    const hub = await hookedHub(receiver.url, secret, { maxAttempts: 2, endpoints: [{ id: "ops-hook", url: receiver.url, secret, tenant: "acme", events: ["input.requested"] }] });
    await startAndWait(hub, "wh-replay", "gate", {});
    let failed: Record<string, unknown> | undefined;
    await vi.waitFor(async () => {
      [failed] = (await rest(hub, "/webhooks/deliveries?status=failed")).body["deliveries"] as Array<Record<string, unknown>>;
      expect(failed).toMatchObject({ status: "failed", tries: 2 });
    }, WAIT);
    const id = String(failed?.["delivery_id"]);
    up = true;
    const replayed = await rest(hub, `/webhooks/deliveries/${id}/replay`, "ada", ["admin"], { method: "POST" });
    expect(replayed).toMatchObject({ status: 200, body: { status: "pending", tries: 0 } });
    await vi.waitFor(async () => expect((await rest(hub, `/webhooks/deliveries/${id}`)).body).toMatchObject({ status: "delivered", tries: 1 }), WAIT);
    expect((await rest(hub, `/webhooks/deliveries/${id}`)).body["attempts"]).toHaveLength(3);
    expect(receiver.accepted.map((r) => r.id)).toEqual([failed?.["webhook_id"]]);
    const again = await rest(hub, `/webhooks/deliveries/${id}/replay`, "ada", ["admin"], { method: "POST" });
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_argument" } });
    expect((await rest(hub, "/webhooks/deliveries/dlv_nope/replay", "ada", ["admin"], { method: "POST" })).status).toBe(404);
  });

  it("a receiver that never answers is timed out, and the retry gets through", async () => {
    const secret = newSecret();
    const receiver = await startReceiver(secret, (_r, index) => (index === 0 ? "hang" : 204));
    const hub = await hookedHub(receiver.url, secret, { timeoutMs: 300, endpoints: [{ id: "ops-hook", url: receiver.url, secret, tenant: "acme", events: ["input.requested"] }] });
    await startAndWait(hub, "wh-hang", "gate", {});
    await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
    const [delivery] = (await rest(hub, "/webhooks/deliveries")).body["deliveries"] as Array<Record<string, unknown>>;
    const attempts = delivery?.["attempts"] as Array<Record<string, unknown>>;
    expect(attempts.map((a) => [a["ok"], a["response_status"], a["error"]])).toEqual([[false, null, "no answer within 300 ms"], [true, 204, null]]);
  });

  it("queue filters and tenants: an endpoint gets only its tenant's events of its queues", async () => {
    const secret = newSecret();
    const receiver = await startReceiver(secret);
    const hub = await hookedHub(receiver.url, secret, {
      endpoints: [
        { id: "ops-only", url: receiver.url, secret, tenant: "acme", queues: ["ops"], events: ["*"] },
        { id: "globex", url: receiver.url, secret, tenant: "globex" },
      ],
    });
    await startAndWait(hub, "wh-q1", "gate", { review: { queue: "sales" } });
    await startAndWait(hub, "wh-q2", "gate", { review: { queue: "ops" } });
    await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
    const rita = await openAs(hub, "rita", REVIEWER);
    await rita.subscribe({ channels: ["lifecycle"] }, { thread_id: "wh-q2" });
    const [item] = receiver.accepted;
    expect(item?.data).toMatchObject({ thread_id: "wh-q2", queue: "ops" });
    await rita.request("input.claim", { interrupt_id: item?.data["interrupt_id"] }, { thread_id: "wh-q2" });
    // "*" names every review event type, claims included.
    await vi.waitFor(() => expect(receiver.accepted.map((r) => r.type)).toEqual(["input.requested", "input.claimed"]), WAIT);
    const globex = await fetch(`${hub.url}/webhooks/deliveries`, { headers: await authHeaders("ada", ["admin"], "globex") });
    expect(await globex.json()).toEqual({ deliveries: [], next_after: null });
  });
});
