/**
 * A compiled graph as a node: state flows in and out by shared keys; an
 * interrupt inside it bubbles to the root with its id, and the resume goes
 * back into the subgraph without re-running what already ran there.
 */
import { describe, expect, it } from "vitest";
import { Command, END, InterruptAlreadyAnsweredError, START, StateGraph, interrupt, lastValue, type Checkpointer, type Interrupt } from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

function build(log: RunLog, checkpointer?: Checkpointer, ask = true) {
  const child = new StateGraph({ topic: lastValue<string>(), draft: lastValue<string>(), approved: lastValue<boolean>() })
    .addNode("write", (s) => {
      log.hit("write");
      return { draft: `a note about ${s.topic}` };
    })
    .addNode("review", (s) => {
      log.hit("review");
      return { approved: ask ? interrupt<boolean>({ question: "approve?", draft: s.draft }) : true };
    })
    .addEdge(START, "write")
    .addEdge("write", "review")
    .addEdge("review", END)
    .compile({ name: "child" });
  return new StateGraph({ topic: lastValue<string>(), draft: lastValue<string>(), approved: lastValue<boolean>(), final: lastValue<string>() })
    .addNode("prep", (s) => {
      log.hit("prep");
      return { topic: s.topic.toUpperCase() };
    })
    .addNode("sub", child)
    .addNode("publish", (s) => {
      log.hit("publish");
      return { final: `${s.draft} [${s.approved ? "approved" : "rejected"}]` };
    })
    .addEdge(START, "prep")
    .addEdge("prep", "sub")
    .addEdge("sub", "publish")
    .addEdge("publish", END)
    .compile(checkpointer ? { checkpointer } : {});
}

describe("subgraph without interrupts", () => {
  it("takes the parent's state in and hands its keys back", async () => {
    const log = new RunLog();
    expect(await build(log, undefined, false).invoke({ topic: "cats" })).toEqual({
      topic: "CATS",
      draft: "a note about CATS",
      approved: true,
      final: "a note about CATS [approved]",
    });
    expect(log.entries).toEqual(["prep", "write", "review", "publish"]);
  });
});

describe.each(SAVERS)("subgraph interrupts ($name)", (kind) => {
  const saver = useSaver(kind);

  it("a breakpoint compiled into the subgraph pauses the root; invoke(null) continues inside it", async () => {
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
      .compile({ name: "child", interruptBefore: ["two"], checkpointer: saver() });
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("sub", child)
      .addNode("after", (s) => {
        log.hit("after");
        return { n: s.n + 5 };
      })
      .addEdge(START, "sub")
      .addEdge("sub", "after")
      .compile({ checkpointer: saver() });
    const paused = await graph.invoke({ n: 1 }, { threadId: "bp" });
    expect(paused).toEqual({ n: 1 });
    expect(log.take()).toEqual(["one"]);
    expect((await graph.getState("bp")).next).toEqual(["sub"]);
    expect(await graph.invoke(null, { threadId: "bp" })).toEqual({ n: 25 });
    expect(log.take()).toEqual(["two", "after"]);
  });

  it("bubble to the root with their id; the resume goes back into the subgraph", async () => {
    const log = new RunLog();
    const graph = build(log, saver());
    const t = { threadId: "t" };

    const paused = await graph.invoke({ topic: "cats" }, t);
    expect(paused).toEqual({
      topic: "CATS",
      __interrupt__: [{ id: expect.stringMatching(/^[0-9a-f]{32}$/), value: { question: "approve?", draft: "a note about CATS" } }],
    });
    const [pending] = paused.__interrupt__ as [Interrupt];
    const state = await graph.getState("t");
    expect(state.next).toEqual(["sub"]);
    expect(state.interrupts).toEqual([pending]);
    expect(state.tasks.map((task) => [task.name, task.interrupts])).toEqual([["sub", [pending]]]);
    expect(log.take()).toEqual(["prep", "write", "review"]);

    expect(await graph.invoke(new Command({ resume: { [pending.id]: true } }), t)).toEqual({
      topic: "CATS",
      draft: "a note about CATS",
      approved: true,
      final: "a note about CATS [approved]",
    });
    // Only the interrupted subgraph node ran again; "write" (before the interrupt) and "prep" did not.
    expect(log.take()).toEqual(["review", "publish"]);
    expect(log.count("write")).toBe(1);

    await expect(graph.invoke(new Command({ resume: { [pending.id]: false } }), t)).rejects.toBeInstanceOf(InterruptAlreadyAnsweredError);
  });

  it("resume with a bare value when it is the only pending interrupt", async () => {
    const log = new RunLog();
    const graph = build(log, saver());
    await graph.invoke({ topic: "dogs" }, { threadId: "t" });
    const out = await graph.invoke(new Command({ resume: false }), { threadId: "t" });
    expect(out.final).toBe("a note about DOGS [rejected]");
    expect([log.count("prep"), log.count("write"), log.count("review"), log.count("publish")]).toEqual([1, 1, 2, 1]);
  });

  it("the root history holds only root checkpoints", async () => {
    const graph = build(new RunLog(), saver());
    await graph.invoke({ topic: "x" }, { threadId: "t" });
    await graph.invoke(new Command({ resume: true }), { threadId: "t" });
    const steps: number[] = [];
    for await (const s of graph.getStateHistory("t")) {
      expect(s.config?.checkpointNs).toBe("");
      steps.push(s.metadata?.step ?? NaN);
    }
    expect(steps).toEqual([3, 2, 1, 0, -1]);
  });
});
