/**
 * `client.assistants.*`, `client.threads.*`, `/ok` and `/info` of the official
 * `@langchain/langgraph-sdk` 1.15 against a real hub on port 0, each called as
 * its docs show; the responses have the SDK's `Assistant`, `Thread` and
 * `ThreadState` shapes. The Agent Inbox's access pattern: search interrupted
 * threads, read their values and interrupts, resume through runs.create.
 */
import type { Assistant, Thread, ThreadState } from "@langchain/langgraph-sdk";
import { describe, expect, it, vi } from "vitest";
import { END, START, StateGraph, lastValue, type Checkpointer } from "../../../../engine/index.ts";
import { createReviewGraph } from "../../../../hub/demo/index.ts";
import { REVIEW_DRAFT } from "../../../../hub/index.ts";
import { HUB_STORAGES, WAIT } from "../../../support/hub.ts";
import { SECRET, lgHub, sdk } from "./helpers.ts";

/** The demo's review graph inside a parent graph, as node `inner`. */
function nestedAssistants(checkpointer: Checkpointer) {
  const inner = createReviewGraph(checkpointer, { tokenDelayMs: 0 });
  const outer = new StateGraph({ topic: lastValue<string>(), draft: lastValue<string>(), decision: lastValue<unknown>(), done: lastValue<boolean>() })
    .addNode("inner", inner)
    .addNode("after", () => ({ done: true }))
    .addEdge(START, "inner")
    .addEdge("inner", "after")
    .addEdge("after", END)
    .compile({ checkpointer, name: "nested" });
  return [
    { id: "review", description: "the review demo", graph: createReviewGraph(checkpointer, { tokenDelayMs: 1 }) },
    { id: "nested", description: "review inside a parent graph", graph: outer },
  ];
}

const status = async (p: Promise<unknown>): Promise<number | undefined> => {
  try {
    await p;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status;
  }
};

describe("GET /ok, GET /info", () => {
  it("answer without a key, even on a hub with a JWT secret", async () => {
    const hub = await lgHub({ jwtSecret: SECRET });
    expect(await (await fetch(`${hub.url}/ok`)).json()).toEqual({ ok: true });
    const info = (await (await fetch(`${hub.url}/info`)).json()) as { flags: Record<string, boolean> };
    expect(info.flags).toMatchObject({ assistants: true, crons: false, store: true });
    // Everything else still needs the key.
    expect((await fetch(`${hub.url}/threads/search`, { method: "POST", body: "{}" })).status).toBe(401);
  });
});

describe("assistants", () => {
  it("search (graph_id, metadata, limit/offset), get, graph (xray), schemas, subgraphs", async () => {
    const hub = await lgHub({ assistants: nestedAssistants });
    const client = await sdk(hub);
    const all: Assistant[] = await client.assistants.search();
    expect(all.map((a) => a.assistant_id).sort()).toEqual(["nested", "review"]);
    expect(all[0]).toMatchObject({ graph_id: expect.any(String), config: { configurable: {} }, version: 1, name: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String) });
    expect((await client.assistants.search({ graphId: "review" })).map((a) => a.assistant_id)).toEqual(["review"]);
    expect(await client.assistants.search({ metadata: { created_by: "system" }, limit: 1 })).toHaveLength(1);
    expect(await client.assistants.search({ metadata: { created_by: "someone else" } })).toEqual([]);
    const paged = await client.assistants.search({ limit: 1, offset: 1, sortBy: "assistant_id", sortOrder: "asc", includePagination: true });
    expect(paged).toMatchObject({ assistants: [{ assistant_id: "review" }], next: null });
    expect(await client.assistants.count()).toBe(2);

    const review = await client.assistants.get("review");
    expect(review).toMatchObject({ assistant_id: "review", graph_id: "review", description: "the review demo" });
    expect(await status(client.assistants.get("nope"))).toBe(404);

    const graph = await client.assistants.getGraph("review");
    expect(graph.nodes.map((n) => n.id)).toEqual(["__start__", "draft", "review", "finalize", "__end__"]);
    expect(graph.edges.map((e) => `${e.source}>${e.target}`)).toEqual(["__start__>draft", "draft>review", "review>finalize", "finalize>__end__"]);
    const flat = await client.assistants.getGraph("nested");
    expect(flat.nodes.map((n) => n.id)).toEqual(["__start__", "inner", "after", "__end__"]);
    const xray = await client.assistants.getGraph("nested", { xray: true });
    expect(xray.nodes.map((n) => n.id)).toEqual(["__start__", "inner:draft", "inner:review", "inner:finalize", "after", "__end__"]);
    expect(xray.edges.map((e) => `${e.source}>${e.target}`).sort()).toEqual(
      ["__start__>inner:draft", "inner:draft>inner:review", "inner:review>inner:finalize", "inner:finalize>after", "after>__end__"].sort(),
    );

    const schemas = await client.assistants.getSchemas("review");
    expect(schemas.graph_id).toBe("review");
    // The public channels; `answer` is private and not listed.
    expect(Object.keys(schemas.state_schema?.properties ?? {}).sort()).toEqual(["decision", "draft", "finalize_calls", "topic"]);
    expect(schemas.input_schema?.type).toBe("object");
    expect(schemas.output_schema?.properties).toEqual(schemas.state_schema?.properties);

    expect(await client.assistants.getSubgraphs("review")).toEqual({});
    const subgraphs = await client.assistants.getSubgraphs("nested");
    expect(Object.keys(subgraphs)).toEqual(["inner"]);
    expect(Object.keys(subgraphs["inner"]?.state_schema?.properties ?? {}).sort()).toEqual(["decision", "draft", "finalize_calls", "topic"]);
    expect(Object.keys(await client.assistants.getSubgraphs("nested", { namespace: "inner" }))).toEqual(["inner"]);
  });
});

describe.each(HUB_STORAGES)("threads on $name", ({ config }) => {
  it("create (metadata, if_exists), get, update, search, count, copy, delete — in the SDK's Thread shape", async () => {
    const hub = await lgHub(config());
    const client = await sdk(hub);
    const created: Thread = await client.threads.create({ threadId: "t-1", metadata: { team: "legal" }, graphId: "review" });
    expect(created).toMatchObject({ thread_id: "t-1", status: "idle", values: {}, interrupts: {}, metadata: { team: "legal", graph_id: "review" }, config: {} });
    // if_exists: do_nothing (the default) returns it, raise is a 409.
    expect(await client.threads.create({ threadId: "t-1", ifExists: "do_nothing" })).toMatchObject({ thread_id: "t-1", metadata: { team: "legal" } });
    expect(await status(client.threads.create({ threadId: "t-1", ifExists: "raise" }))).toBe(409);
    await client.threads.create({ threadId: "t-2", metadata: { team: "sales" } });
    await client.threads.create({ threadId: "t-3", metadata: { team: "legal", tier: 2 } });

    expect(await client.threads.update("t-2", { metadata: { tier: 1 } })).toMatchObject({ metadata: { team: "sales", tier: 1 } });
    expect((await client.threads.get("t-2")).metadata).toEqual({ team: "sales", tier: 1 });

    const legal = await client.threads.search({ metadata: { team: "legal" }, sortBy: "thread_id", sortOrder: "asc" });
    expect(legal.map((t) => t.thread_id)).toEqual(["t-1", "t-3"]);
    expect((await client.threads.search({ limit: 2, offset: 1, sortBy: "thread_id", sortOrder: "desc" })).map((t) => t.thread_id)).toEqual(["t-2", "t-1"]);
    expect(await client.threads.count({ metadata: { team: "legal" } })).toBe(2);
    expect(await client.threads.count({ status: "busy" })).toBe(0);

    // A thread with state: run it to its interrupt, then search by values and status.
    await client.runs.wait("t-1", "review", { input: { topic: "search" } });
    expect((await client.threads.search({ values: { topic: "search" } })).map((t) => t.thread_id)).toEqual(["t-1"]);
    expect((await client.threads.search({ status: "interrupted" })).map((t) => t.thread_id)).toEqual(["t-1"]);
    expect(await client.threads.count({ values: { topic: "nothing" } })).toBe(0);

    const copy = await client.threads.copy("t-1");
    expect(copy.thread_id).not.toBe("t-1");
    expect(copy).toMatchObject({ status: "interrupted", metadata: { team: "legal", graph_id: "review" }, values: { topic: "search", draft: REVIEW_DRAFT } });
    const [copyTask] = Object.keys(copy.interrupts);
    expect(copy.interrupts[copyTask!]).toEqual([{ id: expect.any(String), value: { kind: "review", draft: REVIEW_DRAFT } }]);
    // The copy has its own history: resuming it leaves the original waiting.
    const copyState = await client.threads.getState(copy.thread_id);
    expect(copyState.next).toEqual(["review"]);

    await client.threads.delete("t-2");
    expect(await status(client.threads.get("t-2"))).toBe(404);
    expect(await status(client.threads.delete("t-2"))).toBe(404);
  });

  it("state (latest and at a checkpoint), updateState with as_node, history (limit, before, metadata)", async () => {
    const hub = await lgHub(config());
    const client = await sdk(hub);
    const thread = await client.threads.create();
    const empty: ThreadState = await client.threads.getState(thread.thread_id);
    expect(empty).toMatchObject({ values: {}, next: [], tasks: [], checkpoint: { thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null }, parent_checkpoint: null });

    await client.runs.wait(thread.thread_id, "review", { input: { topic: "state" }, metadata: { purpose: "test" } });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ topic: "state", draft: REVIEW_DRAFT });
    expect(state.next).toEqual(["review"]);
    expect(state.checkpoint).toEqual({ thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String), checkpoint_map: null });
    expect(state.parent_checkpoint).toEqual({ thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String), checkpoint_map: null });
    const [task] = state.tasks;
    expect(task).toMatchObject({ name: "review", error: null, interrupts: [{ id: expect.any(String), value: { kind: "review", draft: REVIEW_DRAFT } }] });
    // The thread's interrupts are the same, keyed by the task's id.
    const t = await client.threads.get(thread.thread_id);
    expect(t.interrupts).toEqual({ [task!.id]: task!.interrupts });

    const parentId = state.parent_checkpoint!.checkpoint_id!;
    const atParent = await client.threads.getState(thread.thread_id, parentId);
    expect(atParent.checkpoint.checkpoint_id).toBe(parentId);
    expect(atParent.next).toEqual(["draft"]);
    expect((await client.threads.getState(thread.thread_id, { thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: parentId, checkpoint_map: null })).checkpoint.checkpoint_id).toBe(parentId);
    expect(await status(client.threads.getState(thread.thread_id, "no-such-checkpoint"))).toBe(404);

    const history = await client.threads.getHistory(thread.thread_id);
    expect(history[0]?.checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    expect(history.length).toBeGreaterThanOrEqual(3);
    expect(await client.threads.getHistory(thread.thread_id, { limit: 1 })).toHaveLength(1);
    const older = await client.threads.getHistory(thread.thread_id, { before: { configurable: { checkpoint_id: state.checkpoint.checkpoint_id } } });
    expect(older[0]?.checkpoint.checkpoint_id).toBe(parentId);
    const loops = await client.threads.getHistory(thread.thread_id, { metadata: { source: "loop" } });
    expect(loops.length).toBeGreaterThan(0);
    expect(loops.every((s) => s.metadata?.source === "loop")).toBe(true);

    // updateState as the review node: the interrupt is answered by state, the thread moves on.
    const updated = await client.threads.updateState(thread.thread_id, { values: { answer: "by update" }, asNode: "review" });
    expect(updated).toMatchObject({ checkpoint: { thread_id: thread.thread_id, checkpoint_id: expect.any(String) } });
    const after = await client.threads.getState(thread.thread_id);
    expect(after.next).toEqual(["finalize"]);
    expect(after.metadata).toMatchObject({ source: "update" });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
    // The question the update went past is no longer open for review.
    const item = (await (await fetch(`${hub.url}/reviews/${task!.interrupts[0]!.id}`)).json()) as { status: string };
    expect(item.status).toBe("cancelled");
    const done = await client.runs.wait(thread.thread_id, "review", { input: null });
    expect(done).toMatchObject({ decision: "by update", finalize_calls: 1 });
  });

  it("the Agent Inbox pattern: search interrupted threads, read values and interrupts, resume through runs.create", async () => {
    const hub = await lgHub(config());
    const client = await sdk(hub);
    const ids: string[] = [];
    for (const topic of ["one", "two"]) {
      const thread = await client.threads.create({ graphId: "review" });
      await client.runs.wait(thread.thread_id, "review", { input: { topic } });
      ids.push(thread.thread_id);
    }
    const inbox = await client.threads.search({ status: "interrupted", metadata: { graph_id: "review" } });
    expect(inbox.map((t) => t.thread_id).sort()).toEqual([...ids].sort());
    for (const thread of inbox) {
      expect(thread.values).toMatchObject({ draft: REVIEW_DRAFT });
      const [interrupt] = Object.values(thread.interrupts).flat();
      expect(interrupt).toEqual({ id: expect.any(String), value: { kind: "review", draft: REVIEW_DRAFT } });
      const run = await client.runs.create(thread.thread_id, "review", { command: { resume: `ok ${String(thread.values && (thread.values as { topic?: string }).topic)}` } });
      expect(run).toMatchObject({ thread_id: thread.thread_id, status: expect.stringMatching(/pending|running|success/) });
      await client.runs.join(thread.thread_id, run.run_id);
    }
    await vi.waitFor(async () => expect(await client.threads.count({ status: "interrupted" })).toBe(0), WAIT);
    for (const id of ids) {
      const state = await client.threads.getState(id);
      expect(state.values).toMatchObject({ decision: expect.stringMatching(/^ok (one|two)$/), finalize_calls: 1 });
    }
  });
});
