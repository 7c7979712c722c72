/**
 * compile()-time (and builder-time) validation: every mistake fails with a
 * GraphValidationError whose `.reason` names it.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  END,
  GraphValidationError,
  MemorySaver,
  MissingCheckpointerError,
  START,
  StateGraph,
  lastValue,
  type GraphValidationReason,
} from "../../engine/index.ts";

const schema = () => ({ n: lastValue<number>() });
const noop = () => ({});

/** Runs `build` and returns the reason of the GraphValidationError it throws. */
function reasonOf(build: () => unknown): GraphValidationReason {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(GraphValidationError);
    expect((error as GraphValidationError).code).toBe("GRAPH_VALIDATION");
    return (error as GraphValidationError).reason;
  }
  throw new Error("expected a GraphValidationError, but the graph was accepted");
}

describe("graph validation", () => {
  it.each([
    ["an edge to an unknown node", () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").addEdge("a", "ghost").compile()],
    ["an edge from an unknown node", () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").addEdge("ghost", "a").compile()],
    ["a join with an unknown source", () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").addEdge(["a", "ghost"], END).compile()],
    [
      "a path map naming an unknown node",
      () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").addConditionalEdges("a", () => "x", { x: "ghost" }).compile(),
    ],
    ["a conditional edge from an unknown node", () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").addConditionalEdges("ghost", () => END).compile()],
    ["ends naming an unknown node", () => new StateGraph(schema()).addNode("a", noop, { ends: ["ghost"] }).addEdge(START, "a").compile()],
    [
      "interruptBefore naming an unknown node",
      () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").compile({ checkpointer: new MemorySaver(), interruptBefore: ["ghost"] }),
    ],
    [
      "interruptAfter naming an unknown node",
      () => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").compile({ checkpointer: new MemorySaver(), interruptAfter: ["ghost"] }),
    ],
  ])("unknown_node: %s", (_label, build) => {
    expect(reasonOf(build)).toBe("unknown_node");
  });

  it("the unknown_node message names the node and the known ones", () => {
    expect(() => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").addEdge("a", "ghost").compile()).toThrow(/"ghost".*known: a/);
  });

  it.each([
    ["no edge from START", () => new StateGraph(schema()).addNode("a", noop).addEdge("a", END).compile()],
    ["an empty graph", () => new StateGraph(schema()).compile()],
  ])("no_entry: %s", (_label, build) => {
    expect(reasonOf(build)).toBe("no_entry");
  });

  it.each([
    ["a node with no edge into it", () => new StateGraph(schema()).addNode("a", noop).addNode("island", noop).addEdge(START, "a").compile()],
    [
      "a node reachable only from an unreachable node",
      () => new StateGraph(schema()).addNode("a", noop).addNode("b", noop).addNode("c", noop).addEdge(START, "a").addEdge("b", "c").compile(),
    ],
    [
      "a node that only a Command goto could reach, with no ends declared",
      () => new StateGraph(schema()).addNode("a", () => new Command({ goto: "target" })).addNode("target", noop).addEdge(START, "a").compile(),
    ],
  ])("unreachable_node: %s", (_label, build) => {
    expect(reasonOf(build)).toBe("unreachable_node");
  });

  it("reachability counts ends and path maps; a router without a path map may go anywhere", () => {
    expect(() => new StateGraph(schema()).addNode("a", noop, { ends: ["t"] }).addNode("t", noop).addEdge(START, "a").compile()).not.toThrow();
    expect(() =>
      new StateGraph(schema()).addNode("a", noop).addNode("t", noop).addEdge(START, "a").addConditionalEdges("a", () => "t", { go: "t" }).compile(),
    ).not.toThrow();
    expect(() => new StateGraph(schema()).addNode("a", noop).addNode("t", noop).addEdge(START, "a").addConditionalEdges("a", () => "t").compile()).not.toThrow();
  });

  it("duplicate_node: the same name twice", () => {
    expect(reasonOf(() => new StateGraph(schema()).addNode("a", noop).addNode("a", noop))).toBe("duplicate_node");
  });

  it.each([
    ["a node named with the __ prefix", () => new StateGraph(schema()).addNode("__start__", noop)],
    ["a node named __end__", () => new StateGraph(schema()).addNode(END, noop)],
    ["a node name with ':'", () => new StateGraph(schema()).addNode("a:b", noop)],
    ["a node name with '|'", () => new StateGraph(schema()).addNode("a|b", noop)],
    ["a channel named with the __ prefix", () => new StateGraph({ __interrupt__: lastValue<number>() })],
  ])("reserved_name: %s", (_label, build) => {
    expect(reasonOf(build)).toBe("reserved_name");
  });

  it.each([
    ["interruptBefore", { interruptBefore: ["a"] }],
    ["interruptAfter", { interruptAfter: ["a"] }],
    ["interruptBefore '*'", { interruptBefore: "*" as const }],
  ])("breakpoints compile without a checkpointer (a subgraph uses its parent's): %s", async (_label, options) => {
    const graph = new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").compile(options);
    // Run on its own, a graph that could pause with nowhere to save the pause says so.
    await expect(graph.invoke({})).rejects.toBeInstanceOf(MissingCheckpointerError);
  });

  it("empty breakpoint lists need no checkpointer", () => {
    expect(() => new StateGraph(schema()).addNode("a", noop).addEdge(START, "a").compile({ interruptBefore: [], interruptAfter: [] })).not.toThrow();
  });

  it.each([
    ["START as a target", () => new StateGraph(schema()).addNode("a", noop).addEdge("a", START)],
    ["END as a source", () => new StateGraph(schema()).addNode("a", noop).addEdge(END, "a")],
    ["START in a join", () => new StateGraph(schema()).addNode("a", noop).addEdge([START, "a"], END)],
    ["a conditional edge from END", () => new StateGraph(schema()).addConditionalEdges(END, () => "a")],
    ["an empty sequence", () => new StateGraph(schema()).addSequence([])],
  ])("invalid_edge: %s", (_label, build) => {
    expect(reasonOf(build)).toBe("invalid_edge");
  });

  it("a valid graph compiles and lists its nodes", () => {
    const graph = new StateGraph(schema()).addNode("a", noop).addNode("b", noop).addEdge(START, "a").addEdge("a", "b").addEdge("b", END).compile();
    expect(graph.nodes).toEqual(["a", "b"]);
  });
});
