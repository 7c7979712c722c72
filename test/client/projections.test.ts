/**
 * The thread projection as a pure function of events: the checked
 * translate → review → resume sequence of docs/PROTOCOL.md, values, status,
 * the agent tree, and a resync that rebuilds from its snapshot.
 */
import { describe, expect, it } from "vitest";
import { buildTree, initialThreadState, projectThread, reduceThread } from "../../client/index.ts";
import { ev, numbered, textMessage, translationSequence } from "../support/protocol-docs.ts";

describe("the translation example of docs/PROTOCOL.md", () => {
  const events = translationSequence();

  it("ends with the final values, a finished 'Hola mundo' and no pending interrupt", () => {
    const state = projectThread("thread-1", events);
    expect(state.values).toEqual({ source: "Hello world", translation: "Hola mundo", approved: true });
    expect(state.messages).toHaveLength(1);
    const [message] = state.messages;
    expect(message).toMatchObject({ id: "msg-1", role: "ai", node: "translate", namespace: [], status: "finished", text: "Hola mundo", finishReason: "stop", run_id: "run-1" });
    expect(message?.usage).toEqual({ input_tokens: 5, output_tokens: 2, total_tokens: 7 });
    expect(state.interrupts.pending).toEqual([]);
    expect(state.interrupts.resolved.map((r) => [r.interrupt_id, r.outcome])).toEqual([["<interrupt-1>", "answered"]]);
    expect(state.status).toEqual({ run_id: "run-2", status: "completed" });
  });

  it("pauses with the review question pending and the run interrupted", () => {
    const firstRun = events.filter((e) => e.run_id === "run-1");
    const state = projectThread("thread-1", firstRun);
    expect(state.status).toEqual({ run_id: "run-1", status: "interrupted" });
    expect(state.interrupts.pending).toEqual([
      expect.objectContaining({
        interrupt_id: "<interrupt-1>",
        thread_id: "thread-1",
        run_id: "run-1",
        node: "review",
        namespace: [],
        status: "open",
        payload: expect.objectContaining({ kind: "translation_review", question: "Accept this translation?" }),
      }),
    ]);
    expect(state.values).toEqual({ source: "Hello world", translation: "Hola mundo" });
  });

  it("streams the text token by token", () => {
    const texts: string[] = [];
    let state = initialThreadState("thread-1");
    for (const event of events) {
      const next = reduceThread(state, event);
      if (next.messages !== state.messages) texts.push(next.messages[0]?.text ?? "");
      state = next;
    }
    expect(texts).toEqual(["", "", "Hola", "Hola mundo", "Hola mundo", "Hola mundo"]);
  });

  it("builds a per-run agent tree of nodes", () => {
    const afterFirst = projectThread("thread-1", events.filter((e) => e.run_id === "run-1"));
    expect(buildTree(afterFirst.tree)).toMatchObject({
      namespace: [],
      status: "interrupted",
      graph_name: "translation",
      nodes: [
        { name: "translate", task_id: "<task-1>", status: "completed" },
        { name: "review", task_id: "<task-2>", status: "interrupted" },
      ],
      children: [],
    });
    const final = projectThread("thread-1", events);
    expect(final.tree.run_id).toBe("run-2");
    expect(buildTree(final.tree)).toMatchObject({ status: "completed", nodes: [{ name: "review", status: "completed" }] });
  });

  it("leaves slices untouched by unrelated events (same references)", () => {
    const state = projectThread("thread-1", events.slice(0, 4));
    const next = reduceThread(state, ev("custom", { payload: "halfway" }));
    expect(next).toBe(state);
    const withValues = reduceThread(state, ev("values", { source: "x" }));
    expect(withValues.messages).toBe(state.messages);
    expect(withValues.interrupts).toBe(state.interrupts);
  });
});

describe("values and status", () => {
  it("takes root values only, and ignores an interrupt-only values event", () => {
    const state = projectThread("th_1", [
      ev("values", { a: 1 }),
      ev("values", { inner: true }, { namespace: ["research:t1"] }),
      ev("values", { __interrupt__: [{ id: "i1", value: 1 }] }),
    ]);
    expect(state.values).toEqual({ a: 1 });
  });

  it("follows the root lifecycle; a cancelled run is 'cancelled' with its error", () => {
    const state = projectThread("th_1", [
      ev("lifecycle", { event: "started", graph_name: "g" }, { run_id: "r1" }),
      ev("lifecycle", { event: "running" }, { run_id: "r1" }),
      ev("lifecycle", { event: "started", graph_name: "sub" }, { run_id: "r1", namespace: ["sub:t1"] }),
      ev("lifecycle", { event: "failed", error: "run cancelled", cancelled: true }, { run_id: "r1" }),
    ]);
    expect(state.status).toEqual({ run_id: "r1", status: "cancelled", error: "run cancelled" });
  });
});

describe("agent tree", () => {
  it("nests subgraph namespaces under their parents with their nodes", () => {
    const tree = projectThread("th_1", [
      ev("lifecycle", { event: "started", graph_name: "outer" }, { run_id: "r1", timestamp: 100 }),
      ev("tasks", { id: "t1", name: "research", input: {}, triggers: [] }, { node: "research", timestamp: 110 }),
      ev("lifecycle", { event: "started", graph_name: "research" }, { run_id: "r1", namespace: ["research:t1"], node: "research", timestamp: 120 }),
      ev("tasks", { id: "t2", name: "write", input: {}, triggers: [] }, { namespace: ["research:t1"], node: "write", timestamp: 130 }),
      ev("lifecycle", { event: "started" }, { run_id: "r1", namespace: ["research:t1", "inner:t3"], timestamp: 140 }),
      ev("tasks", { id: "t2", name: "write", error: "boom", result: null, interrupts: [] }, { namespace: ["research:t1"], node: "write", timestamp: 175 }),
      ev("lifecycle", { event: "failed", error: "boom" }, { run_id: "r1", namespace: ["research:t1"], timestamp: 180 }),
    ]).tree;
    const root = buildTree(tree);
    // Timestamps give durations: a task from its start to its result, a namespace from started to its end.
    expect(root?.nodes).toEqual([{ name: "research", task_id: "t1", status: "running", started_at: 110 }]);
    expect(root).toMatchObject({ started_at: 100 });
    expect(root).not.toHaveProperty("ended_at");
    const research = root?.children[0];
    expect(research).toMatchObject({ namespace: ["research:t1"], node: "research", graph_name: "research", status: "failed", error: "boom", started_at: 120, ended_at: 180 });
    expect(research?.nodes).toEqual([{ name: "write", task_id: "t2", status: "failed", error: "boom", started_at: 130, ended_at: 175 }]);
    expect(research?.children.map((c) => c.namespace)).toEqual([["research:t1", "inner:t3"]]);
  });

  it("starts over when a new run starts", () => {
    const state = projectThread("th_1", [
      ev("lifecycle", { event: "started" }, { run_id: "r1" }),
      ev("lifecycle", { event: "started" }, { run_id: "r1", namespace: ["a:1"] }),
      ev("lifecycle", { event: "started" }, { run_id: "r2" }),
    ]);
    expect(state.tree.run_id).toBe("r2");
    expect(state.tree.namespaces.map((n) => n.key)).toEqual([""]);
  });
});

describe("resync", () => {
  it("drops what was derived and rebuilds from the snapshot", () => {
    const before = projectThread("th_1", numbered([
      ev("lifecycle", { event: "started" }, { run_id: "r1" }),
      ...textMessage("m1", ["Hel", "lo"], { node: "agent", run_id: "r1" }),
      ev("input.requested", { interrupt_id: "old", payload: 1 }, { run_id: "r1" }),
    ]));
    expect(before.messages).toHaveLength(1);
    const after = reduceThread(
      before,
      ev("resync", {
        reason: "evicted",
        head_seq: 5120,
        snapshot: {
          values: { status: "awaiting_review" },
          interrupts: [{ interrupt_id: "int_5f2c", namespace: ["review:t1"], node: "ask_legal", payload: { question: "Approve clause 7?" } }],
          run: { run_id: "run_8Xk2", status: "interrupted" },
        },
      }),
    );
    expect(after.values).toEqual({ status: "awaiting_review" });
    expect(after.messages).toEqual([]);
    expect(after.status).toEqual({ run_id: "run_8Xk2", status: "interrupted" });
    expect(after.interrupts.pending).toEqual([
      { interrupt_id: "int_5f2c", thread_id: "th_1", run_id: "run_8Xk2", namespace: ["review:t1"], node: "ask_legal", payload: { question: "Approve clause 7?" }, status: "open" },
    ]);
    expect(buildTree(after.tree)).toMatchObject({ namespace: [], status: "interrupted", children: [] });
  });
});
