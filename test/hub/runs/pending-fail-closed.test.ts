/**
 * Reading a thread's pending interrupts fails closed: when the checkpoint
 * cannot be read, the hub never takes that for "nothing pending" — which
 * would let a run.start skip review, or void the open questions when a run
 * ends. Reads fail by injection, in the assistant's graph (the hub's port).
 */
import { describe, expect, it } from "vitest";
import type { Checkpointer, StreamOptions, StreamPart } from "../../../engine/index.ts";
import { createReviewGraph } from "../../../hub/demo/index.ts";
import type { Assistant, AssistantGraph } from "../../../hub/index.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { ALL_CHANNELS, TestSocket, interruptIdsOf, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";

/** The demo review graph, whose getState fails `failReads` times — counted from when `armAfterStream` says. */
class FailingReads implements AssistantGraph {
  failReads = 0;
  /** Arm this many failures for the moment a stream ends (the read executeRun makes next). */
  armAfterStream = 0;
  readonly #inner: ReturnType<typeof createReviewGraph>;
  constructor(checkpointer: Checkpointer) {
    this.#inner = createReviewGraph(checkpointer, { tokenDelayMs: 0 });
  }
  get name(): string {
    return this.#inner.name;
  }
  async *stream(input: Parameters<AssistantGraph["stream"]>[0], options: StreamOptions): AsyncIterableIterator<StreamPart> {
    yield* this.#inner.stream(input, options);
    this.failReads += this.armAfterStream;
    this.armAfterStream = 0;
  }
  async getState(threadId: string, options?: { checkpointId?: string }) {
    if (this.failReads > 0) {
      this.failReads -= 1;
      throw new Error("disk I/O error (injected)");
    }
    return this.#inner.getState(threadId, options);
  }
  getStateHistory(...args: Parameters<AssistantGraph["getStateHistory"]>) {
    return this.#inner.getStateHistory(...args);
  }
  checkInput(input: Record<string, unknown>): void {
    this.#inner.checkInput(input);
  }
}

async function hubWithFailingReads() {
  let graph: FailingReads | undefined;
  const hub = await testHub({
    assistants: (checkpointer): Assistant[] => [{ id: "review", description: "the demo review graph; reads fail on demand", graph: (graph = new FailingReads(checkpointer)) }],
  });
  if (!graph) throw new Error("assistants not built");
  return { hub, graph };
}

describe("pending interrupts fail closed", () => {
  it("a run.start on an interrupted thread is refused when the pending interrupts cannot be read", async () => {
    const { hub, graph } = await hubWithFailingReads();
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-closed/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "first" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));

    graph.failReads = 1;
    // run.start(null) continues a thread; read as "nothing pending", it would run past the open question.
    const refused = await socket.request("run.start", { assistant_id: "review", input: null });
    expect(refused).toMatchObject({ type: "error", error: "unknown_error", message: expect.stringContaining("disk I/O error (injected)") });
    const closed = (await (await fetch(`${hub.url}/threads/t-closed`)).json()) as { status: string; interrupts: Record<string, unknown[]> };
    expect(closed.status).toBe("interrupted");
    expect(Object.values(closed.interrupts).flat()).toHaveLength(1);
    expect(socket.events.filter(isRootLifecycle("running"))).toHaveLength(1);

    // Readable again: the usual refusal, and the question is still answerable.
    expect(await socket.request("run.start", { assistant_id: "review", input: null })).toMatchObject({ type: "error", error: "invalid_argument" });
    const [interruptId] = interruptIdsOf(socket.events);
    expect(await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" })).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("completed"));
  });

  it("a run whose pending interrupts cannot be read at its end fails, and its questions stay open", async () => {
    const { hub, graph } = await hubWithFailingReads();
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-end/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    graph.armAfterStream = 1;
    const started = await socket.request("run.start", { assistant_id: "review", input: { topic: "end" } });
    const ended = (e: ProtocolEvent): boolean => ["failed", "completed", "interrupted"].some((status) => isRootLifecycle(status)(e));
    const failed = await socket.waitForEvent(ended, "the run's end");
    expect(failed.method === "lifecycle" && failed.params.data.event).toBe("failed");
    expect(failed.method === "lifecycle" && failed.params.data.error).toMatch(/pending interrupts could not be read: disk I\/O error \(injected\)/);
    expect(started).toMatchObject({ type: "success" });
    expect(await (await fetch(`${hub.url}/threads/t-end`)).json()).toMatchObject({ status: "error" });

    // Read as "nothing pending", the review item would have been voided (interrupt_cancelled).
    const [interruptId] = interruptIdsOf(socket.events);
    expect(await (await fetch(`${hub.url}/reviews/${interruptId}`)).json()).toMatchObject({ status: "open" });
    expect(await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" })).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("completed"));
  });
});
