/**
 * Seed 004 §8.1.6: the checkpoints before and after each pause, as
 * getStateHistory shows them (newest first): steps -1/0/1, sources, next,
 * tasks with their interrupts and results, parent configs.
 *
 * Switchboard differences (DESIGN.md): the second interrupt of a node gets a
 * new id, and a snapshot's `interrupts` lists what still waits for an answer
 * (answered ones stay visible on the task).
 */
import { describe, expect, it } from "vitest";
import { Command, END, START, StateGraph, interrupt, lastValue, type CompiledStateGraph, type StateSchema } from "../../engine/index.ts";
import { RunLog, SAVERS, collect, shapeOf, useSaver } from "./fixtures.ts";

const PULL = "__pregel_pull";

describe.each(SAVERS)("seed checkpoints around interrupts ($name)", (kind) => {
  const saver = useSaver(kind);
  const history = <S extends StateSchema>(graph: CompiledStateGraph<S>) => collect(graph.getStateHistory("123"));

  it("two interrupts in one node: history after each pause and after the end", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ username: lastValue<string>(), age: lastValue<number>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        const username = interrupt<string>("请输入您的姓名");
        const age = interrupt<number>("请输入您的年龄");
        return { username, age };
      })
      .addEdge(START, "node_a")
      .addEdge("node_a", END)
      .compile({ checkpointer: saver() });
    const config = { threadId: "123" };
    const startTask = { name: "__start__", path: [PULL, "__start__"], error: null, interrupts: [], result: {} };
    const inputShape = { values: {}, next: ["__start__"], source: "input", step: -1, tasks: [startTask], interrupts: [] };

    // First pause: the interrupt hangs on the step-0 checkpoint (step 1 never completed).
    const first = await graph.invoke({}, config);
    expect(first.__interrupt__?.map((i) => i.value)).toEqual(["请输入您的姓名"]);
    const h1 = await history(graph);
    expect(h1.map(shapeOf)).toEqual([
      {
        values: {},
        next: ["node_a"],
        source: "loop",
        step: 0,
        tasks: [{ name: "node_a", path: [PULL, "node_a"], error: null, interrupts: ["请输入您的姓名"], result: null }],
        interrupts: ["请输入您的姓名"],
      },
      inputShape,
    ]);
    const [step0, input] = h1 as [(typeof h1)[0], (typeof h1)[0]];
    expect(step0.config).toMatchObject({ threadId: "123", checkpointNs: "" });
    expect(step0.parentConfig).toEqual(input.config);
    expect(input.parentConfig).toBeUndefined();
    expect(step0.tasks[0]?.interrupts).toEqual(first.__interrupt__);
    expect(step0.interrupts).toEqual(first.__interrupt__);

    // First resume: no new checkpoint; the same checkpoint and task now carry the second question.
    const second = await graph.invoke(new Command({ resume: "小黄" }), config);
    expect(second.__interrupt__?.map((i) => i.value)).toEqual(["请输入您的年龄"]);
    const h2 = await history(graph);
    expect(h2.map((s) => s.config)).toEqual(h1.map((s) => s.config));
    expect(h2[0]?.tasks[0]?.id).toBe(step0.tasks[0]?.id);
    expect(h2.map(shapeOf)).toEqual([
      { ...shapeOf(step0), tasks: [{ ...shapeOf(step0).tasks[0], interrupts: ["请输入您的年龄"] }], interrupts: ["请输入您的年龄"] },
      inputShape,
    ]);
    // The answer given is not part of the snapshot.
    expect(JSON.stringify(h2[0])).not.toContain("小黄");

    // Second resume: step 1 completes; step 0's task records its result.
    expect(await graph.invoke(new Command({ resume: 123 }), config)).toEqual({ username: "小黄", age: 123 });
    const h3 = await history(graph);
    expect(h3.map(shapeOf)).toEqual([
      { values: { username: "小黄", age: 123 }, next: [], source: "loop", step: 1, tasks: [], interrupts: [] },
      {
        values: {},
        next: ["node_a"],
        source: "loop",
        step: 0,
        tasks: [{ name: "node_a", path: [PULL, "node_a"], error: null, interrupts: ["请输入您的年龄"], result: { username: "小黄", age: 123 } }],
        interrupts: [], // answered: nothing waits here any more
      },
      inputShape,
    ]);
    expect(h3[0]?.parentConfig).toEqual(step0.config);
    expect(h3.slice(1).map((s) => s.config)).toEqual(h1.map((s) => s.config));
    expect(log.count("node_a")).toBe(3);
  });

  it("parallel interrupts: recorded per task and on the snapshot", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ username: lastValue<string>(), age: lastValue<number>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        return { username: interrupt<string>("请输入您的姓名") };
      })
      .addNode("node_b", () => {
        log.hit("node_b");
        return { age: interrupt<number>("请输入您的年龄") };
      })
      .addEdge(START, "node_a")
      .addEdge(START, "node_b")
      .addEdge("node_a", END)
      .addEdge("node_b", END)
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({}, { threadId: "123" });
    expect(paused.__interrupt__?.map((i) => i.value)).toEqual(["请输入您的姓名", "请输入您的年龄"]);
    const h = await history(graph);
    expect(h.map(shapeOf)).toEqual([
      {
        values: {},
        next: ["node_a", "node_b"],
        source: "loop",
        step: 0,
        tasks: [
          { name: "node_a", path: [PULL, "node_a"], error: null, interrupts: ["请输入您的姓名"], result: null },
          { name: "node_b", path: [PULL, "node_b"], error: null, interrupts: ["请输入您的年龄"], result: null },
        ],
        interrupts: ["请输入您的姓名", "请输入您的年龄"],
      },
      expect.objectContaining({ source: "input", step: -1, next: ["__start__"] }),
    ]);
    expect(h[0]?.interrupts).toEqual(paused.__interrupt__);
    expect(h[0]?.parentConfig).toEqual(h[1]?.config);

    const answers = Object.fromEntries((paused.__interrupt__ ?? []).map((i) => [i.id, i.value === "请输入您的年龄" ? 19 : "小黄"]));
    expect(await graph.invoke(new Command({ resume: answers }), { threadId: "123" })).toEqual({ username: "小黄", age: 19 });
    const after = await history(graph);
    expect(after.map((s) => s.metadata?.step)).toEqual([1, 0, -1]);
    expect(after[1]?.tasks.map((t) => t.result)).toEqual([{ username: "小黄" }, { age: 19 }]);
    expect([log.count("node_a"), log.count("node_b")]).toEqual([2, 2]);
  });

  it("a partial step: node_b's result is recorded, and node_b is not re-run on resume", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ username: lastValue<string>(), age: lastValue<number>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        return { username: interrupt<string>("请输入您的姓名") };
      })
      .addNode("node_b", () => {
        log.hit("node_b");
        return { age: 12 };
      })
      .addEdge(START, "node_a")
      .addEdge(START, "node_b")
      .addEdge("node_a", END)
      .addEdge("node_b", END)
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({}, { threadId: "123" });
    // As in the seed: the result shows the finished task's writes with the interrupt.
    expect(paused).toEqual({ age: 12, __interrupt__: [{ id: expect.any(String), value: "请输入您的姓名" }] });
    const h = await history(graph);
    expect(h.map(shapeOf)).toEqual([
      {
        values: {},
        next: ["node_a", "node_b"],
        source: "loop",
        step: 0,
        tasks: [
          { name: "node_a", path: [PULL, "node_a"], error: null, interrupts: ["请输入您的姓名"], result: null },
          { name: "node_b", path: [PULL, "node_b"], error: null, interrupts: [], result: { age: 12 } },
        ],
        interrupts: ["请输入您的姓名"],
      },
      expect.objectContaining({ source: "input", step: -1 }),
    ]);
    expect((await graph.getState("123")).values).toEqual({});

    expect(await graph.invoke(new Command({ resume: "小黄" }), { threadId: "123" })).toEqual({ username: "小黄", age: 12 });
    expect(log.entries.filter((e) => e === "node_b")).toEqual(["node_b"]);
    expect(log.count("node_a")).toBe(2);
  });
});
