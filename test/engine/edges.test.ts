/**
 * Edges and routing: Send fan-out (map-reduce), join edges, conditional edges
 * with a path map and END, Command goto, addSequence. Each test counts the
 * node runs, so a node that fires twice or not at all fails it.
 */
import { describe, expect, it } from "vitest";
import { Command, END, InvalidCommandError, START, Send, StateGraph, lastValue, reducer } from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

describe("Send fan-out", () => {
  it("map-reduce: one task per Send, results folded by the reducer, then one reduce step", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ subjects: lastValue<string[]>(), jokes: list(), best: lastValue<string>() })
      .addNode("generate_topics", () => {
        log.hit("generate_topics");
        return { subjects: ["lions", "elephants", "penguins"] };
      })
      .addNode("generate_joke", (arg) => {
        const { subject } = arg as unknown as { subject: string };
        log.hit(`joke:${subject}`);
        return { jokes: [`a joke about ${subject}`] };
      })
      .addNode("best_joke", (state) => {
        log.hit("best_joke");
        return { best: state.jokes[1] as string };
      })
      .addEdge(START, "generate_topics")
      .addConditionalEdges("generate_topics", (state) => state.subjects.map((subject) => new Send("generate_joke", { subject })), ["generate_joke"])
      .addEdge("generate_joke", "best_joke")
      .addEdge("best_joke", END)
      .compile();

    const out = await graph.invoke({});
    // Writes of a step are applied in Send order, whatever order the tasks finished in.
    expect(out.jokes).toEqual(["a joke about lions", "a joke about elephants", "a joke about penguins"]);
    expect(out.best).toBe("a joke about elephants");
    expect(log.entries.filter((e) => e.startsWith("joke:")).sort()).toEqual(["joke:elephants", "joke:lions", "joke:penguins"]);
    expect([log.count("generate_topics"), log.count("best_joke")]).toEqual([1, 1]);
  });

  it("fans out straight from START with a router and no path map", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ items: lastValue<number[]>(), squares: reducer((all: number[], more: number[]) => [...all, ...more], () => []) })
      .addNode("square", (arg) => {
        const n = (arg as unknown as { n: number }).n;
        log.hit(`square:${n}`);
        return { squares: [n * n] };
      })
      .addConditionalEdges(START, (state) => state.items.map((n) => new Send("square", { n })))
      .compile();
    expect(await graph.invoke({ items: [1, 2, 3] })).toEqual({ items: [1, 2, 3], squares: [1, 4, 9] });
    expect(log.entries).toHaveLength(3);
  });

  it("Command({ goto: Send[] }) fans out from inside a node", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ out: list() })
      .addNode("plan", () => new Command({ goto: [new Send("work", "x"), new Send("work", "y")] }), { ends: ["work"] })
      .addNode("work", (arg) => {
        log.hit(`work:${String(arg)}`);
        return { out: [String(arg)] };
      })
      .addEdge(START, "plan")
      .compile();
    expect(await graph.invoke({})).toEqual({ out: ["x", "y"] });
    expect(log.entries.sort()).toEqual(["work:x", "work:y"]);
  });
});

describe("join edges", () => {
  it("c runs once after both a and b in the same step", async () => {
    const log = new RunLog();
    const node = (name: string) => () => {
      log.hit(name);
      return { out: [name] };
    };
    const graph = new StateGraph({ out: list() })
      .addNode("a", node("a"))
      .addNode("b", node("b"))
      .addNode("c", node("c"))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge(["a", "b"], "c")
      .addEdge("c", END)
      .compile();
    expect(await graph.invoke({})).toEqual({ out: ["a", "b", "c"] });
    expect(log.count("c")).toBe(1);
    expect(log.entries.at(-1)).toBe("c");
  });

  it("c waits for the later of a and b when they finish in different steps, and runs once", async () => {
    const log = new RunLog();
    const node = (name: string) => () => {
      log.hit(name);
      return { out: [name] };
    };
    const graph = new StateGraph({ out: list() })
      .addNode("a", node("a"))
      .addNode("b1", node("b1"))
      .addNode("b2", node("b2"))
      .addNode("c", node("c"))
      .addEdge(START, "a")
      .addEdge(START, "b1")
      .addEdge("b1", "b2")
      .addEdge(["a", "b2"], "c")
      .addEdge("c", END)
      .compile();
    expect(await graph.invoke({})).toEqual({ out: ["a", "b1", "b2", "c"] });
    expect(log.count("c")).toBe(1);
    expect(log.entries.indexOf("c")).toBeGreaterThan(log.entries.indexOf("b2"));
  });

  it("a plain edge from a sibling still fires its target at once", async () => {
    // a → c directly and [a, b] → d: c must not wait for b.
    const log = new RunLog();
    const node = (name: string) => () => {
      log.hit(name);
      return { out: [name] };
    };
    const graph = new StateGraph({ out: list() })
      .addNode("a", node("a"))
      .addNode("b", node("b"))
      .addNode("b2", node("b2"))
      .addNode("c", node("c"))
      .addNode("d", node("d"))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge("b", "b2")
      .addEdge("a", "c")
      .addEdge(["a", "b2"], "d")
      .compile();
    expect(await graph.invoke({})).toEqual({ out: ["a", "b", "b2", "c", "d"] });
    expect(["a", "b", "b2", "c", "d"].map((n) => log.count(n))).toEqual([1, 1, 1, 1, 1]);
  });
});

describe("conditional edges", () => {
  function router(log: RunLog) {
    const node = (name: string) => (s: { n: number; out: string[] }) => {
      log.hit(name);
      return { out: [`${name}:${s.n}`] };
    };
    return new StateGraph({ n: lastValue<number>(), out: list() })
      .addNode("check", node("check"))
      .addNode("big", node("big"))
      .addNode("small", node("small"))
      .addEdge(START, "check")
      .addConditionalEdges("check", (s) => (s.n > 10 ? "is_big" : s.n > 0 ? "is_small" : "nothing"), {
        is_big: "big",
        is_small: "small",
        nothing: END,
      })
      .addEdge("big", END)
      .addEdge("small", END)
      .compile();
  }

  it.each([
    [50, ["check:50", "big:50"]],
    [5, ["check:5", "small:5"]],
    [0, ["check:0"]],
  ])("n = %s routes through the path map (END included)", async (n, out) => {
    const log = new RunLog();
    expect(await router(log).invoke({ n })).toEqual({ n, out });
    expect(log.entries).toEqual(out.map((o) => o.split(":")[0]));
  });

  it("an answer outside the path map is a named error", async () => {
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("check", () => ({}))
      .addNode("next", () => ({}))
      .addEdge(START, "check")
      .addConditionalEdges("check", () => "elsewhere", { there: "next" })
      .compile();
    await expect(graph.invoke({ n: 1 })).rejects.toBeInstanceOf(InvalidCommandError);
  });

  it("a router sees the state with its node's own writes", async () => {
    const graph = new StateGraph({ n: lastValue<number>(), out: list() })
      .addNode("bump", (s) => ({ n: s.n + 100 }))
      .addNode("big", () => ({ out: ["big"] }))
      .addEdge(START, "bump")
      .addConditionalEdges("bump", (s) => (s.n > 10 ? "big" : END), ["big", END])
      .compile();
    expect(await graph.invoke({ n: 1 })).toEqual({ n: 101, out: ["big"] });
  });
});

describe.each(SAVERS)("addSequence and Command routing ($name)", (kind) => {
  const saver = useSaver(kind);

  it("addSequence chains the nodes in order, each once", async () => {
    const log = new RunLog();
    const step = (name: string) => (s: { out: string[] }) => {
      log.hit(name);
      return { out: [`${name}${s.out.length}`] };
    };
    const graph = new StateGraph({ out: list() })
      .addSequence([
        ["first", step("first")],
        ["second", step("second")],
        ["third", step("third")],
      ])
      .addEdge(START, "first")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({}, { threadId: "t" })).toEqual({ out: ["first0", "second1", "third2"] });
    expect(log.entries).toEqual(["first", "second", "third"]);
    expect(graph.nodes).toEqual(["first", "second", "third"]);
  });

  it("Command({ goto, update }) adds to the node's static edges", async () => {
    const log = new RunLog();
    const node = (name: string) => () => {
      log.hit(name);
      return { out: [name] };
    };
    const graph = new StateGraph({ out: list() })
      .addNode("a", () => new Command({ update: { out: ["a"] }, goto: "extra" }), { ends: ["extra"] })
      .addNode("b", node("b"))
      .addNode("extra", node("extra"))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({}, { threadId: "t" })).toEqual({ out: ["a", "b", "extra"] });
    expect(log.entries.sort()).toEqual(["b", "extra"]);
  });
});
