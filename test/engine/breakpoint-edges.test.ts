/**
 * Static breakpoints at the edges of the state machine, compared scenario by
 * scenario with LangGraph.js 1.7.3: new input while paused at a breakpoint
 * starts a new pass from START, and "*" never pauses at the internal START node.
 */
import { describe, expect, it } from "vitest";
import { END, START, StateGraph, reducer, type Checkpointer, type CompileOptions } from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

function abc(log: RunLog, checkpointer: Checkpointer, options: Omit<CompileOptions, "checkpointer">) {
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
    .compile({ checkpointer, ...options });
}

describe.each(SAVERS)("breakpoints at the edges ($name)", (kind) => {
  const saver = useSaver(kind);
  const t = { threadId: "t" };

  it("new input while paused at a breakpoint starts a new pass from START and drops the stale task", async () => {
    const log = new RunLog();
    const graph = abc(log, saver(), { interruptBefore: ["b"] });
    expect(await graph.invoke({ log: ["in"] }, t)).toEqual({ log: ["in", "a"] });
    expect(log.take()).toEqual(["a"]);

    // LangGraph: the planned b is discarded, the input runs from START, and the pass pauses before b again.
    expect(await graph.invoke({ log: ["in2"] }, t)).toEqual({ log: ["in", "a", "in2", "a"] });
    expect(log.take()).toEqual(["a"]);
    expect((await graph.getState("t")).next).toEqual(["b"]);

    expect(await graph.invoke(null, t)).toEqual({ log: ["in", "a", "in2", "a", "b", "c"] });
    expect(log.take()).toEqual(["b", "c"]);
    expect((await graph.getState("t")).next).toEqual([]);
  });

  it.each([
    // [ran, next] after each of four calls: the input, then three invoke(null).
    ["interruptBefore", { interruptBefore: "*" as const }, [[], ["a"], ["b"], ["c"]], [["a"], ["b"], ["c"], []]],
    ["interruptAfter", { interruptAfter: "*" as const }, [["a"], ["b"], ["c"], []], [["b"], ["c"], [], []]],
  ])('"*" in %s never pauses at __start__: the first pause is at the first user node', async (_label, options, ran, nexts) => {
    const log = new RunLog();
    const graph = abc(log, saver(), options);
    const seen: Array<{ ran: string[]; next: string[] }> = [];
    for (const input of [{ log: ["in"] }, null, null, null]) {
      await graph.invoke(input, t);
      seen.push({ ran: log.take(), next: (await graph.getState("t")).next });
    }
    expect(seen).toEqual(nexts.map((next, i) => ({ ran: ran[i], next })));
    expect(log.entries).toEqual(["a", "b", "c"]);
  });
});
