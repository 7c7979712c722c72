/**
 * updateState() without asNode: the update is recorded as the node that wrote
 * last (LangGraph's rule), or, when that cannot be told (parallel nodes in the
 * last step), fails with AmbiguousUpdateError naming the candidates.
 */
import { describe, expect, it } from "vitest";
import { AmbiguousUpdateError, END, InvalidUpdateError, START, StateGraph, lastValue, reducer, type Checkpointer } from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

function chain(log: RunLog, checkpointer: Checkpointer) {
  const node = (name: string) => () => {
    log.hit(name);
    return { log: [name] };
  };
  return new StateGraph({ log: list() })
    .addNode("a", node("a"))
    .addNode("b", node("b"))
    .addNode("c", node("c"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile({ checkpointer });
}

describe.each(SAVERS)("updateState without asNode ($name)", (kind) => {
  const saver = useSaver(kind);

  it("after a plain chain, records the update as the node that ran last", async () => {
    const log = new RunLog();
    const graph = chain(log, saver());
    await graph.invoke({ log: ["in"] }, { threadId: "t" });
    log.take();
    await graph.updateState("t", { log: ["u"] });
    const state = await graph.getState("t");
    expect(state.metadata?.writes).toEqual({ c: { log: ["u"] } });
    expect(state.next).toEqual([]);
    expect(await graph.invoke(null, { threadId: "t" })).toEqual({ log: ["in", "a", "b", "c", "u"] });
    expect(log.take()).toEqual([]);
  });

  it("after a loop a×3 → b, records it as b, so nothing runs again", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ log: list(), n: lastValue<number>() })
      .addNode("a", (s) => {
        log.hit("a");
        return { log: ["a"], n: (s.n ?? 0) + 1 };
      })
      .addNode("b", () => {
        log.hit("b");
        return { log: ["b"] };
      })
      .addEdge(START, "a")
      .addConditionalEdges("a", (s) => (s.n < 3 ? "a" : "b"), ["a", "b"])
      .addEdge("b", END)
      .compile({ checkpointer: saver() });
    await graph.invoke({ log: ["in"] }, { threadId: "loop" });
    expect(log.take()).toEqual(["a", "a", "a", "b"]);
    await graph.updateState("loop", { log: ["u"] });
    const state = await graph.getState("loop");
    expect(state.metadata?.writes).toEqual({ b: { log: ["u"] } });
    expect(state.next).toEqual([]);
    expect(await graph.invoke(null, { threadId: "loop" })).toEqual({ log: ["in", "a", "a", "a", "b", "u"], n: 3 });
    expect(log.take()).toEqual([]);
  });

  it("when the last step ran nodes in parallel, fails with AmbiguousUpdateError naming them; nothing is written", async () => {
    const graph = new StateGraph({ log: list() })
      .addNode("x", () => ({ log: ["x"] }))
      .addNode("y", () => ({ log: ["y"] }))
      .addEdge(START, "x")
      .addEdge(START, "y")
      .compile({ checkpointer: saver() });
    await graph.invoke({ log: ["in"] }, { threadId: "p" });
    const before = await graph.getState("p");
    const call = graph.updateState("p", { log: ["u"] });
    await expect(call).rejects.toBeInstanceOf(AmbiguousUpdateError);
    await expect(call).rejects.toBeInstanceOf(InvalidUpdateError);
    await expect(call).rejects.toMatchObject({ code: "INVALID_UPDATE", candidates: ["x", "y"], message: expect.stringMatching(/asNode/) });
    expect((await graph.getState("p")).config).toEqual(before.config);
    // Naming the node resolves it.
    await graph.updateState("p", { log: ["u"] }, { asNode: "y" });
    expect((await graph.getState("p")).values).toEqual({ log: ["in", "x", "y", "u"] });
  });
});
