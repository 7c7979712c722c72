/**
 * Seed 004 §8.2: static breakpoints. Each call's node-run log must match the
 * seed's log lines exactly: before+after [a, b] on a→b→c takes four calls
 * ("after a" and "before b" are one superstep boundary, so they pause once),
 * breakpoints pause whole supersteps, call-time lists behave like compiled
 * ones, and a resume without them runs to the end.
 */
import { describe, expect, it } from "vitest";
import { END, START, StateGraph, lastValue, type Checkpointer, type CompileOptions, type RunOptions } from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const BREAKPOINTS = { interruptBefore: ["node_a", "node_b"], interruptAfter: ["node_a", "node_b"] } as const;
const result = (node: string) => ({ final_res: `${node} 运行的中间结果` });

function sequenceGraph(log: RunLog, options: CompileOptions) {
  const node = (name: string) => () => {
    log.hit(name);
    return result(name);
  };
  return new StateGraph({ final_res: lastValue<string>() })
    .addNode("node_a", node("node_a"))
    .addNode("node_b", node("node_b"))
    .addNode("node_c", node("node_c"))
    .addEdge(START, "node_a")
    .addEdge("node_a", "node_b")
    .addEdge("node_b", "node_c")
    .addEdge("node_c", END)
    .compile(options);
}

function parallelGraph(log: RunLog, checkpointer: Checkpointer) {
  const node = (name: string, update: Record<string, string>) => () => {
    log.hit(name);
    return update;
  };
  return new StateGraph({ final_res: lastValue<string>() })
    .addNode("node_a", node("node_a", result("node_a")))
    .addNode("node_b", node("node_b", result("node_b")))
    .addNode("node_c", node("node_c", result("node_c")))
    .addNode("node_d", node("node_d", {}))
    .addNode("node_e", node("node_e", {}))
    .addEdge(START, "node_a")
    .addEdge(START, "node_d")
    .addEdge("node_a", "node_b")
    .addEdge("node_d", "node_e")
    .addEdge(["node_b", "node_e"], "node_c")
    .addEdge("node_c", END)
    .compile({ checkpointer, ...BREAKPOINTS });
}

describe.each(SAVERS)("seed static breakpoints ($name)", (kind) => {
  const saver = useSaver(kind);
  const config = { threadId: "123" };

  it("compile time, in sequence: four calls, after a + before b pause once", async () => {
    const log = new RunLog();
    const graph = sequenceGraph(log, { checkpointer: saver(), ...BREAKPOINTS });

    const first = await graph.invoke({}, config);
    expect(first).toEqual({}); // before node_a: nothing ran; no interrupt info for breakpoints
    expect(log.take()).toEqual([]);
    expect((await graph.getState("123")).next).toEqual(["node_a"]);

    expect(await graph.invoke(null, config)).toEqual(result("node_a"));
    expect(log.take()).toEqual(["node_a"]);
    expect((await graph.getState("123")).next).toEqual(["node_b"]);

    expect(await graph.invoke(null, config)).toEqual(result("node_b"));
    expect(log.take()).toEqual(["node_b"]);
    expect((await graph.getState("123")).next).toEqual(["node_c"]);

    expect(await graph.invoke(null, config)).toEqual(result("node_c"));
    expect(log.take()).toEqual(["node_c"]);
    expect((await graph.getState("123")).next).toEqual([]);
    expect(log.entries).toEqual(["node_a", "node_b", "node_c"]);
  });

  it("compile time, with parallel branches: pauses at superstep boundaries, whole steps", async () => {
    const log = new RunLog();
    const graph = parallelGraph(log, saver());

    expect(await graph.invoke({}, config)).toEqual({});
    expect(log.take()).toEqual([]);

    // node_d shares node_a's step: it runs (and pauses) with it, though it has no breakpoint.
    expect(await graph.invoke(null, config)).toEqual(result("node_a"));
    expect(log.take().sort()).toEqual(["node_a", "node_d"]);
    expect((await graph.getState("123")).next).toEqual(["node_b", "node_e"]);

    expect(await graph.invoke(null, config)).toEqual(result("node_b"));
    expect(log.take().sort()).toEqual(["node_b", "node_e"]);
    expect((await graph.getState("123")).next).toEqual(["node_c"]);

    expect(await graph.invoke(null, config)).toEqual(result("node_c"));
    expect(log.take()).toEqual(["node_c"]);
    expect(log.entries.filter((e) => e === "node_c")).toHaveLength(1);
  });

  it("call time: the same lists on every call give the same four results", async () => {
    const log = new RunLog();
    const graph = sequenceGraph(log, { checkpointer: saver() });
    const withBreakpoints: RunOptions = { ...config, ...BREAKPOINTS };

    expect(await graph.invoke({}, withBreakpoints)).toEqual({});
    expect(log.take()).toEqual([]);
    expect(await graph.invoke(null, withBreakpoints)).toEqual(result("node_a"));
    expect(log.take()).toEqual(["node_a"]);
    expect(await graph.invoke(null, withBreakpoints)).toEqual(result("node_b"));
    expect(log.take()).toEqual(["node_b"]);
    expect(await graph.invoke(null, withBreakpoints)).toEqual(result("node_c"));
    expect(log.take()).toEqual(["node_c"]);
  });

  it("call time, forgotten on resume: the third call runs b and c, the fourth runs nothing", async () => {
    const log = new RunLog();
    const graph = sequenceGraph(log, { checkpointer: saver() });
    const withBreakpoints: RunOptions = { ...config, ...BREAKPOINTS };

    expect(await graph.invoke({}, withBreakpoints)).toEqual({});
    expect(await graph.invoke(null, withBreakpoints)).toEqual(result("node_a"));
    expect(log.take()).toEqual(["node_a"]);

    expect(await graph.invoke(null, config)).toEqual(result("node_c"));
    expect(log.take()).toEqual(["node_b", "node_c"]);

    const checkpoints = (await graph.getState("123")).config?.checkpointId;
    expect(await graph.invoke(null, config)).toEqual(result("node_c"));
    expect(log.take()).toEqual([]);
    // Nothing ran, so nothing was written.
    expect((await graph.getState("123")).config?.checkpointId).toBe(checkpoints);
  });

  it("a non-empty call-time list overrides the compiled one; an empty list falls back to it", async () => {
    const log = new RunLog();
    const graph = sequenceGraph(log, { checkpointer: saver(), interruptBefore: ["node_c"] });

    // Overridden: pause before node_b instead of node_c.
    expect(await graph.invoke({}, { threadId: "override", interruptBefore: ["node_b"] })).toEqual(result("node_a"));
    expect(log.take()).toEqual(["node_a"]);
    expect(await graph.invoke(null, { threadId: "override", interruptBefore: ["node_b"] })).toEqual(result("node_c"));
    expect(log.take()).toEqual(["node_b", "node_c"]);

    // Empty list: the compiled breakpoint (before node_c) applies.
    expect(await graph.invoke({}, { threadId: "fallback", interruptBefore: [] })).toEqual(result("node_b"));
    expect(log.take()).toEqual(["node_a", "node_b"]);
    expect((await graph.getState("fallback")).next).toEqual(["node_c"]);
  });
});
