/**
 * Subgraphs run from a parent's task — as a node, or invoked inside a node
 * function (seed 002's wrapper for a subgraph with another state schema):
 * they run under the parent's checkpointer and namespace, their interrupts
 * bubble to the root and resume there, the caller's recursion limit applies
 * inside, and compiled breakpoints need no checkpointer of their own.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  END,
  GraphRecursionError,
  MissingCheckpointerError,
  START,
  StateGraph,
  interrupt,
  lastValue,
  type Interrupt,
} from "../../engine/index.ts";
import { RunLog, SAVERS, collect, useSaver } from "./fixtures.ts";

/** A subgraph with its own schema, compiled without a checkpointer. */
function asker(log: RunLog) {
  return new StateGraph({ q: lastValue<string>(), ans: lastValue<string>() })
    .addNode("ask", (s) => {
      log.hit(`ask ${s.q}`);
      return { ans: interrupt<string>({ q: s.q }) };
    })
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ name: "asker" });
}

function counter(limit: number) {
  return new StateGraph({ n: lastValue<number>() })
    .addNode("step", (s) => ({ n: s.n + 1 }))
    .addEdge(START, "step")
    .addConditionalEdges("step", (s) => (s.n < limit ? "step" : END), ["step", END])
    .compile({ name: "counter" });
}

describe.each(SAVERS)("subgraphs run from a task ($name)", (kind) => {
  const saver = useSaver(kind);

  it("a subgraph invoked inside a node runs under the parent's checkpointer: its interrupt bubbles to the root and the resume reaches it", async () => {
    const log = new RunLog();
    const sub = asker(log);
    const graph = new StateGraph({ topic: lastValue<string>(), result: lastValue<string>() })
      .addNode("wrap", async (s) => {
        log.hit("wrap");
        const out = await sub.invoke({ q: s.topic });
        return { result: `${out.q}=${out.ans}` };
      })
      .addEdge(START, "wrap")
      .addEdge("wrap", END)
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({ topic: "x" }, { threadId: "t" });
    expect(paused).toEqual({ topic: "x", __interrupt__: [{ id: expect.stringMatching(/^[0-9a-f]{32}$/), value: { q: "x" } }] });
    expect(log.take()).toEqual(["wrap", "ask x"]);
    const state = await graph.getState("t");
    const [question] = paused.__interrupt__ as [Interrupt];
    expect(state.next).toEqual(["wrap"]);
    expect(state.interrupts).toEqual([question]);
    const task = state.tasks[0];
    // The subgraph's checkpoints live in the parent's checkpointer, in the task's namespace, under the paused root checkpoint.
    const inner = await saver().getTuple({ threadId: "t", checkpointNs: `wrap:${task?.id}` });
    expect(inner?.metadata.parents).toEqual({ "": state.config?.checkpointId });

    const parts = await collect(graph.stream(new Command({ resume: { [question.id]: "yes" } }), { threadId: "t", streamMode: "updates", subgraphs: true }));
    expect(parts.map((p) => [p.ns, p.data])).toEqual([
      [[`wrap:${task?.id}`], { ask: { ans: "yes" } }],
      [[], { wrap: { result: "x=yes" } }],
    ]);
    expect(log.take()).toEqual(["wrap", "ask x"]);
    expect((await graph.getState("t")).values).toEqual({ topic: "x", result: "x=yes" });
  });

  it("two subgraph calls in one node keep apart: each asks, each answer reaches its own", async () => {
    const log = new RunLog();
    const sub = asker(log);
    const graph = new StateGraph({ result: lastValue<string>() })
      .addNode("wrap", async () => {
        const first = await sub.invoke({ q: "1" });
        const second = await sub.invoke({ q: "2" });
        return { result: `${first.ans}${second.ans}` };
      })
      .addEdge(START, "wrap")
      .compile({ checkpointer: saver() });
    const one = await graph.invoke({}, { threadId: "two" });
    expect(one.__interrupt__?.map((i) => i.value)).toEqual([{ q: "1" }]);
    const two = await graph.invoke(new Command({ resume: "A" }), { threadId: "two" });
    expect(two.__interrupt__?.map((i) => i.value)).toEqual([{ q: "2" }]);
    expect(await graph.invoke(new Command({ resume: "B" }), { threadId: "two" })).toEqual({ result: "AB" });
    // The first call finished before the second asked: it was not asked again.
    expect(log.entries).toEqual(["ask 1", "ask 1", "ask 2", "ask 2"]);
  });

  it("the caller's recursion limit applies inside subgraphs, as a node and invoked inside one", async () => {
    const inner = counter(40);
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("sub", inner)
      .addNode("wrap", async () => inner.invoke({ n: 0 }))
      .addEdge(START, "sub")
      .addEdge("sub", "wrap")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({ n: 0 }, { threadId: "deep", recursionLimit: 100 })).toEqual({ n: 40 });
    await expect(graph.invoke({ n: 0 }, { threadId: "shallow", recursionLimit: 30 })).rejects.toBeInstanceOf(GraphRecursionError);
    const wrapped = new StateGraph({ n: lastValue<number>() })
      .addNode("wrap", async () => inner.invoke({ n: 0 }))
      .addEdge(START, "wrap")
      .compile({ checkpointer: saver() });
    expect(await wrapped.invoke({ n: 0 }, { threadId: "w", recursionLimit: 41 })).toEqual({ n: 40 });
    await expect(wrapped.invoke({ n: 0 }, { threadId: "w2", recursionLimit: 39 })).rejects.toBeInstanceOf(GraphRecursionError);
  });

  it("a subgraph with compiled breakpoints compiles without a checkpointer and pauses under the parent's", async () => {
    const log = new RunLog();
    const child = new StateGraph({ n: lastValue<number>() })
      .addNode("one", (s) => {
        log.hit("one");
        return { n: s.n + 1 };
      })
      .addNode("two", (s) => {
        log.hit("two");
        return { n: s.n * 10 };
      })
      .addEdge(START, "one")
      .addEdge("one", "two")
      .compile({ name: "child", interruptBefore: ["two"] });
    const graph = new StateGraph({ n: lastValue<number>() }).addNode("sub", child).addEdge(START, "sub").compile({ checkpointer: saver() });
    expect(await graph.invoke({ n: 1 }, { threadId: "bp" })).toEqual({ n: 1 });
    expect(log.take()).toEqual(["one"]);
    expect((await graph.getState("bp")).next).toEqual(["sub"]);
    expect(await graph.invoke(null, { threadId: "bp" })).toEqual({ n: 20 });
    expect(log.take()).toEqual(["two"]);
    // Run on its own it still needs a checkpointer to pause, and says so.
    await expect(child.invoke({ n: 1 })).rejects.toBeInstanceOf(MissingCheckpointerError);
  });
});
