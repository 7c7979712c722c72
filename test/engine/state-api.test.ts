/**
 * The state API over checkpoints: getState, getStateHistory (newest first,
 * limit, before, metadata filter), updateState(asNode) then continue, and
 * forking a thread from an old checkpoint.
 */
import { describe, expect, it } from "vitest";
import {
  CheckpointNotFoundError,
  Command,
  END,
  START,
  StateGraph,
  interrupt,
  lastValue,
  reducer,
  type Checkpointer,
  type Interrupt,
  type StateSnapshot,
} from "../../engine/index.ts";
import { RunLog, SAVERS, collect, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

function abc(log: RunLog, checkpointer: Checkpointer, interruptBefore: string[] = []) {
  const node = (name: string) => (s: { note: string }) => {
    log.hit(name);
    return { out: [`${name}(${s.note})`] };
  };
  return new StateGraph({ note: lastValue<string>(), out: list() })
    .addNode("a", node("a"))
    .addNode("b", node("b"))
    .addNode("c", node("c"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile({ checkpointer, interruptBefore });
}

const stepOf = (s: StateSnapshot) => s.metadata?.step;

describe.each(SAVERS)("state API ($name)", (kind) => {
  const saver = useSaver(kind);

  it("getState of an unknown thread is empty", async () => {
    const state = await abc(new RunLog(), saver()).getState("nobody");
    expect(state).toMatchObject({ values: {}, next: [], tasks: [], interrupts: [], config: undefined, metadata: undefined });
  });

  it("running from a checkpoint id the thread does not have is CheckpointNotFoundError", async () => {
    const graph = abc(new RunLog(), saver());
    await graph.invoke({}, { threadId: "t" });
    await expect(graph.invoke(null, { threadId: "t", checkpointId: "00000000-0000-7000-8000-000000000000" })).rejects.toBeInstanceOf(
      CheckpointNotFoundError,
    );
  });

  it("getStateHistory: newest first, with limit, before and a metadata filter", async () => {
    const graph = abc(new RunLog(), saver());
    await graph.invoke({ note: "n" }, { threadId: "t", metadata: { user: "ann" } });
    const all = await collect(graph.getStateHistory("t"));
    expect(all.map(stepOf)).toEqual([3, 2, 1, 0, -1]);
    expect(all.map((s) => s.next)).toEqual([[], ["c"], ["b"], ["a"], ["__start__"]]);
    expect(all.map((s) => s.metadata?.source)).toEqual(["loop", "loop", "loop", "loop", "input"]);
    // Each checkpoint's parent is the one after it in the list.
    expect(all.slice(0, -1).map((s) => s.parentConfig)).toEqual(all.slice(1).map((s) => s.config));
    expect(all[0]).toEqual(await graph.getState("t"));

    expect((await collect(graph.getStateHistory("t", { limit: 2 }))).map(stepOf)).toEqual([3, 2]);
    const before = all[1]?.config?.checkpointId as string;
    expect((await collect(graph.getStateHistory("t", { before }))).map(stepOf)).toEqual([1, 0, -1]);
    expect((await collect(graph.getStateHistory("t", { before, limit: 1 }))).map(stepOf)).toEqual([1]);
    expect((await collect(graph.getStateHistory("t", { filter: { source: "input" } }))).map(stepOf)).toEqual([-1]);
    expect((await collect(graph.getStateHistory("t", { filter: { step: 2 } }))).map((s) => s.values)).toEqual([{ note: "n", out: ["a(n)", "b(n)"] }]);
    expect(await collect(graph.getStateHistory("t", { filter: { user: "ann" } }))).toHaveLength(5);
    expect(await collect(graph.getStateHistory("t", { filter: { user: "bob" } }))).toHaveLength(0);

    // getState of an old checkpoint by id.
    expect((await graph.getState("t", { checkpointId: before })).values).toEqual(all[1]?.values);
  });

  it("updateState(asNode) writes a new checkpoint; the run continues from it", async () => {
    const log = new RunLog();
    const graph = abc(log, saver(), ["b"]);
    expect(await graph.invoke({ note: "draft" }, { threadId: "t" })).toEqual({ note: "draft", out: ["a(draft)"] });
    expect(log.take()).toEqual(["a"]);
    const paused = await graph.getState("t");

    const config = await graph.updateState("t", { note: "edited", out: ["human"] }, { asNode: "a" });
    const updated = await graph.getState("t");
    expect(updated.config).toEqual(config);
    expect(updated.parentConfig).toEqual(paused.config);
    expect(updated.metadata).toMatchObject({ source: "update", step: (paused.metadata?.step ?? NaN) + 1 });
    expect(updated.values).toEqual({ note: "edited", out: ["a(draft)", "human"] });
    expect(updated.next).toEqual(["b"]);

    expect(await graph.invoke(null, { threadId: "t" })).toEqual({ note: "edited", out: ["a(draft)", "human", "b(edited)", "c(edited)"] });
    expect(log.take()).toEqual(["b", "c"]);
  });

  it("updateState as the last node of a finished thread: its edges fire again", async () => {
    const log = new RunLog();
    const graph = abc(log, saver());
    await graph.invoke({ note: "x" }, { threadId: "t" });
    log.take();
    await graph.updateState("t", { note: "y" }, { asNode: "b" });
    expect((await graph.getState("t")).next).toEqual(["c"]);
    expect(await graph.invoke(null, { threadId: "t" })).toEqual({ note: "y", out: ["a(x)", "b(x)", "c(x)", "c(y)"] });
    expect(log.take()).toEqual(["c"]);
  });

  it("fork: invoke(null, { checkpointId }) replays from an old checkpoint into a new branch", async () => {
    const log = new RunLog();
    const graph = abc(log, saver());
    await graph.invoke({ note: "x" }, { threadId: "t" });
    expect(log.take()).toEqual(["a", "b", "c"]);
    const history = await collect(graph.getStateHistory("t"));
    const afterA = history.find((s) => s.next[0] === "b") as StateSnapshot;
    expect(afterA.values).toEqual({ note: "x", out: ["a(x)"] });

    const forked = await graph.invoke(null, { threadId: "t", checkpointId: afterA.config?.checkpointId as string });
    expect(forked).toEqual({ note: "x", out: ["a(x)", "b(x)", "c(x)"] });
    expect(log.take()).toEqual(["b", "c"]);

    // A fork copy of the old checkpoint, then b's and c's steps; the old checkpoints are untouched.
    const after = await collect(graph.getStateHistory("t"));
    expect(after).toHaveLength(history.length + 3);
    const fork = after[2] as StateSnapshot;
    expect(fork.metadata).toMatchObject({ source: "fork", step: afterA.metadata?.step });
    expect(fork.parentConfig).toEqual(afterA.config);
    expect(fork.values).toEqual(afterA.values);
    expect(after.slice(0, 2).map((s) => s.next)).toEqual([[], ["c"]]);
    expect(after[1]?.parentConfig).toEqual(fork.config);
    expect(after.slice(3).map((s) => s.config)).toEqual(history.map((s) => s.config));
  });

  it("fork before an interrupt asks again in the new branch; the answer resumes the branch", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ answer: lastValue<string>() })
      .addNode("ask", () => {
        log.hit("ask");
        return { answer: interrupt<string>("question?") };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: saver() });
    const first = await graph.invoke({}, { threadId: "t" });
    const [asked] = first.__interrupt__ as [Interrupt];
    expect(await graph.invoke(new Command({ resume: "one" }), { threadId: "t" })).toEqual({ answer: "one" });
    const beforeAsk = (await collect(graph.getStateHistory("t"))).find((s) => s.next[0] === "ask") as StateSnapshot;

    // The old answer is not reused: the question is asked again, as a new question of the branch.
    const again = await graph.invoke(null, { threadId: "t", checkpointId: beforeAsk.config?.checkpointId as string });
    const [reasked] = again.__interrupt__ as [Interrupt];
    expect(reasked.value).toBe("question?");
    expect(reasked.id).not.toBe(asked.id);
    expect((await graph.getState("t")).interrupts).toEqual([reasked]);
    expect(await graph.invoke(new Command({ resume: "two" }), { threadId: "t" })).toEqual({ answer: "two" });
    expect(log.count("ask")).toBe(4);
  });

  it("fork with an edit: updateState({ checkpointId }) then continue", async () => {
    const log = new RunLog();
    const graph = abc(log, saver());
    await graph.invoke({ note: "x" }, { threadId: "t" });
    log.take();
    const afterA = (await collect(graph.getStateHistory("t"))).find((s) => s.next[0] === "b") as StateSnapshot;

    const fork = await graph.updateState("t", { note: "other" }, { asNode: "a", checkpointId: afterA.config?.checkpointId as string });
    expect((await graph.getState("t")).parentConfig).toEqual(afterA.config);
    expect(await graph.invoke(null, { threadId: "t", checkpointId: fork.checkpointId })).toEqual({
      note: "other",
      out: ["a(x)", "b(other)", "c(other)"],
    });
    expect(log.take()).toEqual(["b", "c"]);
  });
});
