/**
 * Runs over a thread WebSocket: the review demo end to end, batch answers
 * for parallel-review, strict answers, multitask strategies and run.cancel.
 */
import { describe, expect, it, vi } from "vitest";
import { START, StateGraph, lastValue, type Checkpointer } from "../../../engine/index.ts";
import { REVIEW_DRAFT } from "../../../hub/index.ts";
import { ALL_CHANNELS, TestSocket, WAIT, interruptIdsOf, isRootLifecycle, testHub, textOf, wsUrl } from "../../support/hub.ts";
import { internalsOf } from "../../../hub/hub.ts";

async function openThread(hub: { url: string }, threadId: string): Promise<TestSocket> {
  const socket = await TestSocket.open(wsUrl(hub, `/threads/${threadId}/stream/events`));
  await socket.subscribe({ channels: ALL_CHANNELS });
  return socket;
}

describe("runs", () => {
  it("input.respond with update edits the state the resumed run works on", async () => {
    const hub = await testHub();
    const socket = await openThread(hub, "t-edit");
    await socket.request("run.start", { assistant_id: "review", input: { topic: "hubs" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [interruptId] = interruptIdsOf(socket.events);
    const respond = await socket.request("input.respond", {
      namespace: [],
      interrupt_id: interruptId,
      response: "approve",
      update: { draft: "an edited draft" },
    });
    expect(respond).toMatchObject({ type: "success", result: { interrupt_ids: [interruptId], resumed: true } });
    await socket.waitForEvent(isRootLifecycle("completed"));
    const state = await socket.request("state.get", { namespace: [] });
    expect(state).toMatchObject({ type: "success", result: { values: { draft: "an edited draft", decision: "approve", finalize_calls: 1 } } });
  });

  it("review: streams the draft, asks, resumes once with the answer", async () => {
    const hub = await testHub();
    const socket = await openThread(hub, "t-review");
    const start = await socket.request("run.start", { assistant_id: "review", input: { topic: "hubs" } });
    expect(start).toMatchObject({ type: "success", result: { run_id: expect.any(String) } });

    const asked = await socket.waitForEvent((e) => e.method === "input.requested", "input.requested");
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    expect(asked.params.data).toMatchObject({ payload: { kind: "review", draft: REVIEW_DRAFT } });
    expect(textOf(socket.events)).toBe(REVIEW_DRAFT);

    const [interruptId] = interruptIdsOf(socket.events);
    const respond = await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" });
    expect(respond.type).toBe("success");
    await socket.waitForEvent(isRootLifecycle("completed"));
    const answered = socket.events.find((e) => e.method === "input.answered");
    expect(answered?.params.data).toMatchObject({ interrupt_ids: [interruptId], answered_by: { sub: "dev" } });

    const state = await socket.request("state.get", { namespace: [] });
    expect(state).toMatchObject({ type: "success", result: { values: { decision: "approve", finalize_calls: 1, draft: REVIEW_DRAFT } } });
    expect(state.type === "success" && "answer" in state.result["values"]!).toBe(false); // private channel

    // seq grows by one per event, event_id = String(seq).
    const seqs = socket.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(socket.events.every((e) => e.event_id === String(e.seq))).toBe(true);
    socket.expectValidFrames();

    const again = await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "again" });
    expect(again).toMatchObject({ type: "error", error: "already_answered" });
  });

  it("parallel-review (eager policy): three questions, one answered alone, then a batch, then joined", async () => {
    const hub = await testHub();
    const socket = await openThread(hub, "t-par");
    await socket.request("run.start", { assistant_id: "parallel-review", input: {}, review_policy: "eager" });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const asked = socket.events.filter((e) => e.method === "input.requested");
    expect(asked.map((e) => e.method === "input.requested" && e.params.data.payload).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { kind: "review", who: "r1" },
      { kind: "review", who: "r2" },
      { kind: "review", who: "r3" },
    ]);
    const ids = interruptIdsOf(socket.events);

    // Partial answer: the run ends interrupted again, two still pending.
    await socket.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "yes" });
    await vi.waitFor(() => expect(socket.events.filter(isRootLifecycle("interrupted"))).toHaveLength(2), WAIT);
    const stale = await socket.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "twice" });
    expect(stale).toMatchObject({ type: "error", error: "already_answered" });
    const unknown = await socket.request("input.respond", { namespace: [], interrupt_id: "feedfacefeedfacefeedfacefeedface", response: 1 });
    expect(unknown).toMatchObject({ type: "error", error: "no_such_interrupt" });

    const batch = await socket.request("input.respond", {
      responses: [
        { namespace: [], interrupt_id: ids[1], response: "no" },
        { namespace: [], interrupt_id: ids[2], response: "maybe" },
      ],
    });
    expect(batch.type).toBe("success");
    await socket.waitForEvent(isRootLifecycle("completed"));
    const state = await socket.request("state.get", { namespace: [] });
    expect(state.type === "success" && state.result["values"]).toMatchObject({ joined: true });
    const answers = state.type === "success" ? (state.result["values"] as { answers: Array<{ who: string }> }).answers : [];
    expect(answers.map((a) => a.who).sort()).toEqual(["r1", "r2", "r3"]);
    socket.expectValidFrames();
  });

  it("busy thread: reject (default), enqueue, interrupt; run.cancel", async () => {
    const hub = await testHub({ demoTokenDelayMs: 20 });
    const socket = await openThread(hub, "t-busy");
    const first = await socket.request("run.start", { assistant_id: "review", input: { topic: "a" } });
    const rejected = await socket.request("run.start", { assistant_id: "review", input: { topic: "b" } });
    expect(rejected).toMatchObject({ type: "error", error: "thread_busy" });

    const cancelled = await socket.request("run.cancel", {});
    expect(cancelled).toMatchObject({ type: "success", result: { status: "cancelled" } });
    const failedLifecycle = await socket.waitForEvent(isRootLifecycle("failed"));
    expect(failedLifecycle.params.data).toMatchObject({ cancelled: true });
    expect(first.type === "success" && (await internalsOf(hub).store.getRun(String(first.result["run_id"])))?.status).toBe("cancelled");

    const second = await socket.request("run.start", { assistant_id: "review", input: { topic: "c" } });
    const queued = await socket.request("run.start", { assistant_id: "review", input: { topic: "d" }, multitask_strategy: "enqueue" });
    expect(queued.type).toBe("success");
    const queuedId = queued.type === "success" ? String(queued.result["run_id"]) : "";
    expect((await internalsOf(hub).store.getRun(queuedId))?.status).toBe("pending");
    const cancelQueued = await socket.request("run.cancel", { run_id: queuedId });
    expect(cancelQueued).toMatchObject({ type: "success", result: { status: "cancelled" } });

    const third = await socket.request("run.start", { assistant_id: "review", input: { topic: "e" }, multitaskStrategy: "interrupt" });
    expect(third.type).toBe("success");
    const secondId = second.type === "success" ? String(second.result["run_id"]) : "";
    expect((await internalsOf(hub).store.getRun(secondId))?.status).toBe("cancelled");
    await vi.waitFor(() => expect(socket.events.filter(isRootLifecycle("interrupted"))).toHaveLength(1), WAIT);
    const thread = await internalsOf(hub).store.getThread("t-busy", "default");
    expect(thread?.status).toBe("interrupted");
    expect(await socket.request("run.cancel", {})).toMatchObject({ type: "error", error: "no_such_run" });
    socket.expectValidFrames();
  });

  it("enqueued run starts when the active one ends", async () => {
    const hub = await testHub({ demoTokenDelayMs: 5 });
    const socket = await openThread(hub, "t-queue");
    await socket.request("run.start", { assistant_id: "parallel-review", input: {} });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const ids = interruptIdsOf(socket.events);
    await socket.request("input.respond", { responses: ids.map((id) => ({ namespace: [], interrupt_id: id, response: "ok" })) });
    const queued = await socket.request("run.start", { assistant_id: "parallel-review", input: {}, multitask_strategy: "enqueue" });
    expect(queued.type).toBe("success");
    const queuedId = queued.type === "success" ? String(queued.result["run_id"]) : "";
    await vi.waitFor(async () => expect((await internalsOf(hub).store.getRun(queuedId))?.status).toBe("interrupted"), WAIT);
  });

  it("parallel reviewers answering at once: every answer applies once (queued while a resume runs)", async () => {
    const hub = await testHub();
    const url = "/threads/t-reviewers/stream/events";
    const lead = await openThread(hub, "t-reviewers");
    await lead.request("run.start", { assistant_id: "parallel-review", input: {} });
    await lead.waitForEvent(isRootLifecycle("interrupted"));
    const ids = interruptIdsOf(lead.events);
    const reviewers = await Promise.all(ids.map(() => TestSocket.open(wsUrl(hub, url))));
    const duplicate = await TestSocket.open(wsUrl(hub, url));
    const replies = await Promise.all([
      ...reviewers.map((r, i) => r.request("input.respond", { namespace: [], interrupt_id: ids[i], response: `answer-${i}` })),
      duplicate.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "late" }),
    ]);
    const [a, b, c, late] = replies;
    expect([a?.type, b?.type, c?.type]).toEqual(["success", "success", "success"]);
    expect(late).toMatchObject({ type: "error", error: "already_answered" });

    await lead.waitForEvent(isRootLifecycle("completed"));
    const state = await lead.request("state.get", { namespace: [] });
    const values = state.type === "success" ? (state.result["values"] as { answers: Array<{ who: string; answer: string }>; joined: boolean }) : undefined;
    expect(values?.joined).toBe(true);
    expect(values?.answers.map((x) => x.answer).sort()).toEqual(["answer-0", "answer-1", "answer-2"]);
  });

  it("rollback: the active run is cancelled and its checkpoints are discarded", async () => {
    const hub = await testHub({ demoTokenDelayMs: 20 });
    const socket = await openThread(hub, "t-rollback");
    await socket.request("run.start", { assistant_id: "review", input: { topic: "first" } });
    await socket.waitForEvent((e) => e.method === "messages");
    const second = await socket.request("run.start", { assistant_id: "review", input: { topic: "second" }, multitask_strategy: "rollback" });
    expect(second.type).toBe("success");
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const history = (await (await fetch(`${hub.url}/threads/t-rollback/history?limit=100`)).json()) as Array<{ values: { topic?: string } }>;
    expect(history.length).toBeGreaterThan(0);
    expect(history.every((h) => h.values.topic === undefined || h.values.topic === "second")).toBe(true);
  });

  it("a failing run ends with a failed lifecycle, a failed record and the thread in error", async () => {
    // Input the graph refuses is refused before a run exists (admission.test.ts): this node fails instead.
    const failing = (checkpointer: Checkpointer) => [
      {
        id: "fail",
        description: "A node that throws.",
        graph: new StateGraph({ n: lastValue<number>() })
          .addNode("boom", () => {
            throw new Error("boom");
          })
          .addEdge(START, "boom")
          .compile({ checkpointer, name: "fail" }),
      },
    ];
    const hub = await testHub({ assistants: failing });
    const socket = await openThread(hub, "t-fail");
    const started = await socket.request("run.start", { assistant_id: "fail", input: { n: 1 } });
    const failed = await socket.waitForEvent(isRootLifecycle("failed"));
    expect(failed.params.data).toMatchObject({ error: expect.any(String) });
    expect(failed.params.data).not.toHaveProperty("cancelled");
    const runId = started.type === "success" ? String(started.result["run_id"]) : "";
    await expect.poll(async () => (await internalsOf(hub).store.getRun(runId))?.status, WAIT).toBe("failed");
    expect((await internalsOf(hub).store.getThread("t-fail", "default"))?.status).toBe("error");
    const tree = await socket.request("agent.getTree", {});
    expect(tree).toMatchObject({ type: "success", result: { tree: { namespace: [], status: "failed", graph_name: "fail" } } });
  });

  it("state.listCheckpoints lists the thread's checkpoints, newest first", async () => {
    const hub = await testHub();
    const socket = await openThread(hub, "t-checkpoints");
    await socket.request("run.start", { assistant_id: "review", input: { topic: "cp" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const listed = await socket.request("state.listCheckpoints", { limit: 2 });
    const checkpoints = listed.type === "success" ? (listed.result["checkpoints"] as Array<{ id: string; step: number; timestamp: string }>) : [];
    expect(checkpoints).toHaveLength(2);
    expect(checkpoints[0]!.step).toBeGreaterThan(checkpoints[1]!.step);
    const cpEvents = socket.events.filter((e) => e.method === "checkpoints").map((e) => (e.method === "checkpoints" ? e.params.data.id : ""));
    expect(cpEvents.at(-1)).toBe(checkpoints[0]!.id);
  });

  it("state.fork re-runs from an old checkpoint: the review can be answered differently", async () => {
    const hub = await testHub();
    const socket = await openThread(hub, "t-fork");
    await socket.request("run.start", { assistant_id: "review", input: { topic: "fork" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    await socket.request("input.respond", { namespace: [], interrupt_id: interruptIdsOf(socket.events)[0], response: "approve" });
    await socket.waitForEvent(isRootLifecycle("completed"));

    const history = (await (await fetch(`${hub.url}/threads/t-fork/history?limit=50`)).json()) as Array<{ next: string[]; checkpoint: { checkpoint_id: string } }>;
    const beforeReview = history.find((h) => h.next.includes("review"));
    expect(beforeReview).toBeDefined();
    const bogus = await socket.request("state.fork", { checkpoint_id: "nope" });
    expect(bogus).toMatchObject({ type: "error", error: "no_such_checkpoint" });
    const fork = await socket.request("state.fork", { checkpoint_id: beforeReview!.checkpoint.checkpoint_id });
    expect(fork).toMatchObject({ type: "success", result: { run_id: expect.any(String), thread_id: "t-fork" } });
    await vi.waitFor(() => expect(socket.events.filter(isRootLifecycle("interrupted"))).toHaveLength(2), WAIT);

    const pending = (await (await fetch(`${hub.url}/threads/t-fork`)).json()) as { interrupts: Record<string, Array<{ id: string }>> };
    await socket.request("input.respond", { namespace: [], interrupt_id: Object.values(pending.interrupts).flat()[0]!.id, response: "reject" });
    await vi.waitFor(() => expect(socket.events.filter(isRootLifecycle("completed"))).toHaveLength(2), WAIT);
    const state = await socket.request("state.get", { namespace: [] });
    expect(state).toMatchObject({ type: "success", result: { values: { decision: "reject", finalize_calls: 1 } } });
  });
});

