/**
 * Review queues across threads: `queue.subscribe` on /ws (snapshot, then
 * live review events), the SSE stream, and the REST reads. Items a
 * subscriber may not answer never reach them.
 */
import { request } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { END, START, Send, StateGraph, interrupt, lastValue, type Checkpointer } from "../../../../engine/index.ts";
import type { Assistant } from "../../../../hub/index.ts";
import type { ProtocolEvent } from "../../../../hub/protocol/index.ts";
import { REVIEWER, WAIT, authHeaders, createThread, ok, openAs, reviewHub, startAndWait } from "./helpers.ts";

const BLOB = "x".repeat(64 * 1024);

/** 32 parallel questions with a 64 KiB payload each, all for the ops queue: 2 MiB of queue events per run. */
function bulky(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({ n: lastValue<number>() })
    .addNode("ask", (state) => {
      interrupt({ question: `part ${state.n}`, blob: BLOB, review: { queue: "ops" } });
      return {};
    })
    .addConditionalEdges(START, () => Array.from({ length: 32 }, (_, n) => new Send("ask", { n })), ["ask"])
    .addEdge("ask", END)
    .compile({ checkpointer, name: "bulky" });
  return { id: "bulky", description: "test: many large questions for one queue", graph };
}

const idsOf = (events: ProtocolEvent[], method: string): string[] =>
  events.flatMap((e) => (e.method === method && "interrupt_id" in e.params.data ? [String(e.params.data.interrupt_id)] : e.method === method && e.method === "input.answered" ? e.params.data.interrupt_ids : []));

describe("review queues", () => {
  it("queue.subscribe: a snapshot of answerable open items, then live events across threads, filtered per principal", async () => {
    const hub = await reviewHub();
    const { ids: [forCarol] } = await startAndWait(hub, "q-a", "gate", { review: { queue: "legal", users: ["carol"] } });
    const carol = await openAs(hub, "carol", REVIEWER);
    const dave = await openAs(hub, "dave", REVIEWER);
    expect(ok(await carol.request("queue.subscribe", { queue: "legal" }))).toMatchObject({ subscription_id: expect.any(String), items: 1 });
    expect(ok(await dave.request("queue.subscribe", { queue: "legal" }))).toMatchObject({ items: 0 });
    expect(idsOf(carol.events, "input.requested")).toEqual([forCarol]);

    const { ids: [open] } = await startAndWait(hub, "q-b", "gate", { review: { queue: "legal" } });
    await startAndWait(hub, "q-other", "gate", { review: { queue: "finance" } });
    await vi.waitFor(() => expect(idsOf(carol.events, "input.requested")).toEqual([forCarol, open]), WAIT);
    await vi.waitFor(() => expect(idsOf(dave.events, "input.requested")).toEqual([open]), WAIT);
    const live = dave.events.find((e) => e.method === "input.requested");
    expect(live).toMatchObject({ thread_id: "q-b", queue: "legal", params: { data: { payload: { question: "ok?" } } } });
    expect(carol.events.find((e) => e.method === "input.requested")).toMatchObject({ queue: "legal" });

    ok(await dave.request("input.claim", { interrupt_id: open }, { thread_id: "q-b" }));
    await vi.waitFor(() => expect(idsOf(carol.events, "input.claimed")).toEqual([open]), WAIT);
    // A subscriber arriving now is told how many claims its snapshot carries.
    const erin = await openAs(hub, "erin", REVIEWER);
    expect(ok(await erin.request("queue.subscribe", { queue: "legal" }))).toMatchObject({ items: 1, claims: 1 });
    await vi.waitFor(() => expect(idsOf(erin.events, "input.claimed")).toEqual([open]), WAIT);
    ok(await dave.request("input.respond", { namespace: [], interrupt_id: open, response: "fine" }, { thread_id: "q-b" }));
    for (const socket of [carol, dave]) {
      await vi.waitFor(() => expect(idsOf(socket.events, "input.answered")).toEqual([open]), WAIT);
    }
    // dave never heard of carol's item.
    expect(dave.events.some((e) => JSON.stringify(e).includes(forCarol!))).toBe(false);
    // Nothing of the finance queue reached either.
    expect([...carol.events, ...dave.events].some((e) => e.thread_id === "q-other")).toBe(false);

    const sub = ok(await carol.request("queue.subscribe", { queue: "finance" }));
    ok(await carol.request("queue.unsubscribe", { subscription_id: sub["subscription_id"] }));
    expect(await carol.request("queue.unsubscribe", { subscription_id: "nope" })).toMatchObject({ type: "error", error: "no_such_subscription" });
    carol.expectValidFrames();
    dave.expectValidFrames();
  });

  it("transformEvent redacts and drops the queue copies too: live, in a new subscriber's snapshot, and on the SSE stream", async () => {
    const hub = await reviewHub({
      transformEvent: (event) => {
        if (event.method === "input.claimed") return null;
        if (event.method !== "input.requested") return event;
        const payload = event.params.data.payload as Record<string, unknown>;
        return { ...event, params: { ...event.params, data: { ...event.params.data, payload: { ...payload, question: "[redacted]" } } } };
      },
    });
    const carol = await openAs(hub, "carol", REVIEWER);
    ok(await carol.request("queue.subscribe", { queue: "legal" }));
    const { ids: [id] } = await startAndWait(hub, "q-redact", "gate", { review: { queue: "legal" } });
    await vi.waitFor(() => expect(idsOf(carol.events, "input.requested")).toEqual([id]), WAIT);
    ok(await carol.request("input.claim", { interrupt_id: id }, { thread_id: "q-redact" }));
    const late = await openAs(hub, "dave", REVIEWER);
    expect(ok(await late.request("queue.subscribe", { queue: "legal" }))).toMatchObject({ items: 1, claims: 0 });
    const res = await fetch(`${hub.url}/queues/legal/stream`, { method: "POST", headers: await authHeaders("erin", REVIEWER) });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes(id!)) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    for (const requested of [...carol.events, ...late.events].filter((e) => e.method === "input.requested")) {
      expect(requested.params.data).toMatchObject({ payload: { question: "[redacted]", review: { queue: "legal" } } });
    }
    expect(text).toContain('"question":"[redacted]"');
    expect(JSON.stringify([...carol.events, ...late.events]) + text).not.toContain('"question":"ok?"');
    // Dropped: the claim reached no queue subscriber, in the snapshot or live.
    expect([...carol.events, ...late.events].some((e) => e.method === "input.claimed")).toBe(false);
    expect(text).not.toContain("input.claimed");
  });

  it("a socket that follows both the thread and its queue gets each review event once (input.requested also as the queue's named copy)", async () => {
    const hub = await reviewHub();
    const rita = await openAs(hub, "rita", REVIEWER);
    ok(await rita.request("queue.subscribe", { queue: "ops" }));
    await createThread(hub, "q-both");
    await rita.subscribe({ channels: ["input", "lifecycle"] }, { thread_id: "q-both" });
    const { operator, ids: [id] } = await startAndWait(hub, "q-both", "gate", { review: { queue: "ops" } });
    ok(await rita.request("input.claim", { interrupt_id: id }, { thread_id: "q-both" }));
    ok(await rita.request("input.respond", { namespace: [], interrupt_id: id, response: "ok" }, { thread_id: "q-both" }));
    await operator.waitForEvent((e) => e.method === "lifecycle" && e.params.namespace.length === 0 && e.params.data.event === "completed");
    await vi.waitFor(() => expect(idsOf(rita.events, "input.answered")).toEqual([id]), WAIT);
    const requested = rita.events.filter((e) => e.method === "input.requested");
    expect(requested.map((e) => [e.queue, e.seq === undefined])).toEqual(expect.arrayContaining([[undefined, false], ["ops", true]]));
    expect(requested).toHaveLength(2);
    expect(idsOf(rita.events, "input.claimed")).toEqual([id]);
  });

  it("REST: GET /queues/:queue/items?status=open per principal, GET /reviews/:id with audit, POST /reviews/:id/answer", async () => {
    const hub = await reviewHub();
    const { ids: [id] } = await startAndWait(hub, "q-rest", "gate", { review: { queue: "legal", users: ["carol"] } });
    const get = async (path: string, sub: string, roles = REVIEWER) => {
      const res = await fetch(`${hub.url}${path}`, { headers: await authHeaders(sub, roles) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await get("/queues/legal/items?status=open", "carol")).body).toMatchObject({ queue: "legal", items: [{ interrupt_id: id, thread_id: "q-rest", status: "open", routing: { users: ["carol"] } }] });
    expect((await get("/queues/legal/items?status=open", "dave")).body).toMatchObject({ items: [] });
    expect((await get("/queues/legal/items?status=done", "carol")).status).toBe(400);
    // Observers of the tenant may read any item; a reviewer without observer only the ones they could answer.
    expect((await get(`/reviews/${id}`, "dave", ["reviewer"])).status).toBe(403);
    expect((await get(`/reviews/nope`, "carol")).status).toBe(404);

    const answer = async (sub: string, response: unknown) => {
      const res = await fetch(`${hub.url}/reviews/${id}/answer`, { method: "POST", headers: { ...(await authHeaders(sub, REVIEWER)), "content-type": "application/json" }, body: JSON.stringify({ response }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await answer("carol", "yes")).toMatchObject({ status: 200, body: { interrupt_id: id, answered_by: { sub: "carol" }, resumed: true, run_id: expect.any(String) } });
    expect(await answer("carol", "again")).toMatchObject({ status: 409, body: { error: "already_answered", winner: { sub: "carol" }, answered_at: expect.any(Number) } });
    const review = await get(`/reviews/${id}`, "olga", ["observer"]);
    expect(review.body).toMatchObject({ interrupt_id: id, status: "answered", answer: { response: "yes", answered_by: { sub: "carol" } } });
    expect((review.body["audit"] as Array<{ kind: string }>).map((a) => a.kind)).toEqual(["requested", "answered", "rejected"]);
  });

  it("REST: GET /threads/:id/reviews lists the thread's items of every status, oldest first, to readers of the thread", async () => {
    const hub = await reviewHub();
    const { ids: [answered] } = await startAndWait(hub, "q-history", "gate", { review: { queue: "legal" } });
    const answer = await fetch(`${hub.url}/reviews/${answered}/answer`, { method: "POST", headers: { ...(await authHeaders("carol", REVIEWER)), "content-type": "application/json" }, body: JSON.stringify({ response: "yes" }) });
    expect(answer.status).toBe(200);
    const list = async (sub: string, roles: string[], thread = "q-history") => {
      const res = await fetch(`${hub.url}/threads/${thread}/reviews`, { headers: await authHeaders(sub, roles) });
      return { status: res.status, body: (await res.json()) as { items?: Array<Record<string, unknown>>; error?: string } };
    };
    await vi.waitFor(async () => expect((await list("olga", ["observer"])).body.items?.[0]?.["resumed_at"]).toEqual(expect.any(Number)), WAIT);
    const { ids: [open] } = await startAndWait(hub, "q-history", "gate", { review: { queue: "legal", users: ["dave"] } });
    const seen = await list("olga", ["observer"]);
    expect(seen.status).toBe(200);
    expect(seen.body.items?.map((i) => [i["interrupt_id"], i["status"]])).toEqual([
      [answered, "answered"],
      [open, "open"],
    ]);
    expect(seen.body.items?.[0]).toMatchObject({ answer: { response: "yes", answered_by: { sub: "carol" } } });
    // A reviewer without the observer role reads the items they could answer, as GET /reviews/:id; no role, none.
    expect((await list("carol", ["reviewer"])).body.items?.map((i) => i["interrupt_id"])).toEqual([answered]);
    expect((await list("dave", ["reviewer"])).body.items?.map((i) => i["interrupt_id"])).toEqual([answered, open]);
    expect(await list("nobody", [])).toMatchObject({ status: 403, body: { error: "permission_denied" } });
    expect(await list("olga", ["observer"], "q-nope")).toMatchObject({ status: 404 });
  });

  it("POST /queues/:queue/stream: SSE snapshot, then live items", async () => {
    const hub = await reviewHub();
    const { ids: [first] } = await startAndWait(hub, "q-sse-1", "gate", { review: { queue: "ops" } });
    const controller = new AbortController();
    const res = await fetch(`${hub.url}/queues/ops/stream`, { method: "POST", headers: await authHeaders("rita", REVIEWER), signal: controller.signal });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    let text = "";
    const reader = res.body!.getReader();
    const reading = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        text += decoder.decode(value);
      }
    })();
    await vi.waitFor(() => expect(text).toContain(first), WAIT);
    expect(hub.stats().sseStreams).toBe(1);
    const { ids: [second] } = await startAndWait(hub, "q-sse-2", "gate", { review: { queue: "ops" } });
    await vi.waitFor(() => expect(text).toContain(`"interrupt_id":"${second}"`), WAIT);
    expect(text).toContain("event: input.requested");
    controller.abort();
    await reading;
    await vi.waitFor(() => expect(hub.stats().sseStreams).toBe(0), WAIT);
  });

  it("POST /queues/:queue/stream: a reader that stops reading is dropped at the slow-consumer bound, as on a socket", async () => {
    const hub = await reviewHub({ assistants: (checkpointer) => [bulky(checkpointer)], limits: { sendSoftBytes: 64 * 1024, sendHardBytes: 512 * 1024 } });
    const { hostname, port } = new URL(hub.url);
    const headers = await authHeaders("rita", REVIEWER);
    let resume = (): void => {};
    const closed = new Promise<void>((resolve) => {
      const req = request({ hostname, port, path: "/queues/ops/stream", method: "POST", headers }, (res) => {
        res.pause(); // never reads
        resume = () => res.resume();
        res.socket.once("close", () => resolve());
      });
      req.on("error", () => resolve());
      req.end();
    });
    await expect.poll(() => hub.stats().sseStreams, WAIT).toBe(1);
    // Runs of 2 MiB of questions each, one after the other has asked, until the kernel's buffers and the bound are past (a few runs).
    for (let i = 0; i < 40 && hub.stats().slowConsumersTerminated === 0; i++) await startAndWait(hub, `q-bulky-${i}`, "bulky", {}, { expected: 32 });
    await vi.waitFor(() => expect(hub.stats().slowConsumersTerminated).toBe(1), WAIT);
    await vi.waitFor(() => expect(hub.stats().sseStreams).toBe(0), WAIT);
    expect(hub.stats().reviewQueueSubscribers).toBe(0);
    resume();
    await closed;
  }, 60_000);
});
