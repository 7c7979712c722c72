/**
 * Command({ resume, update, goto }) as run input, as LangGraph.js 1.7.3 runs
 * it: the update is applied before the resumed task runs again (so the node
 * sees it, "review and edit"), and the goto target runs in the same superstep
 * as the resumed task. Without resume, a Command starts the run at its goto
 * target with its update applied.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  END,
  InvalidCommandError,
  InvalidUpdateError,
  PendingInterruptsError,
  START,
  StateGraph,
  interrupt,
  lastValue,
  reducer,
  type Checkpointer,
  type Interrupt,
} from "../../engine/index.ts";
import { RunLog, SAVERS, collect, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

/** `ask` interrupts; `target` is only reached by a goto (declared in ask's ends). */
function askAndTarget(log: RunLog, checkpointer: Checkpointer, ask: string, target: string) {
  return new StateGraph({ log: list(), note: lastValue<string>() })
    .addNode(
      ask,
      (s) => {
        log.hit(`${ask} sees ${s.note ?? "-"}`);
        return { log: [`${ask}:${interrupt<string>("q")}`] };
      },
      { ends: [target] },
    )
    .addNode(target, () => {
      log.hit(target);
      return { log: [target] };
    })
    .addEdge(START, ask)
    .addEdge(ask, END)
    .addEdge(target, END)
    .compile({ checkpointer });
}

describe.each(SAVERS)("Command input with resume, update and goto ($name)", (kind) => {
  const saver = useSaver(kind);

  // The two name orders: writes of one step apply in task-name order, as in LangGraph.
  it.each([
    ["x", "y", ["in", "cmd", "x:ok", "y"]],
    ["y", "x", ["in", "cmd", "x", "y:ok"]],
  ])("the resumed node (%s) sees the update, and the goto target (%s) runs in the same superstep", async (ask, target, final) => {
    const log = new RunLog();
    const graph = askAndTarget(log, saver(), ask, target);
    await graph.invoke({ log: ["in"] }, { threadId: "t" });
    expect(log.take()).toEqual([`${ask} sees -`]);

    const parts = await collect(
      graph.stream(new Command({ resume: "ok", update: { log: ["cmd"], note: "edited" }, goto: target }), { threadId: "t", streamMode: "updates" }),
    );
    expect(log.take().sort()).toEqual([`${ask} sees edited`, target].sort());
    expect(parts.map((p) => Object.keys(p.data as object)).flat().sort()).toEqual([ask, target].sort());
    expect((await graph.getState("t")).values).toEqual({ log: final, note: "edited" });
    // One superstep for both: input, the paused step, the resumed step.
    const history = [];
    for await (const s of graph.getStateHistory("t")) history.push([s.metadata?.source, s.metadata?.step]);
    expect(history).toEqual([
      ["loop", 1],
      ["loop", 0],
      ["input", -1],
    ]);
  });

  function twoAsks(log: RunLog) {
    return new StateGraph({ answers: list(), note: lastValue<string>() })
      .addNode(
        "a",
        (s) => {
          log.hit(`a sees ${s.note ?? "-"}`);
          return { answers: [`a:${interrupt<string>("a?")}`] };
        },
        // "extra" is only reached by the reviewer's goto; declared so compile() can see it.
        { ends: ["extra"] },
      )
      .addNode("b", () => {
        log.hit("b");
        return { answers: [`b:${interrupt<string>("b?")}`] };
      })
      .addNode("extra", () => {
        log.hit("extra");
        return { answers: ["extra"] };
      })
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge("a", END)
      .addEdge("b", END)
      .addEdge("extra", END)
      .compile({ checkpointer: saver() });
  }

  it("with another interrupt still open, the update and goto apply at once and still hold at the next resume", async () => {
    const log = new RunLog();
    const graph = twoAsks(log);
    const first = await graph.invoke({}, { threadId: "t" });
    const [qa, qb] = first.__interrupt__ as Interrupt[];
    expect(qa?.value).toBe("a?");
    log.take();
    const second = await graph.invoke(new Command({ resume: { [qa?.id as string]: "yes" }, update: { note: "edited" }, goto: "extra" }), {
      threadId: "t",
    });
    // a re-ran seeing the edit, extra ran in the same step; b is still open (and was not re-run).
    expect(log.take().sort()).toEqual(["a sees edited", "extra"]);
    expect(second).toEqual({ answers: ["a:yes", "extra"], note: "edited", __interrupt__: [qb] });
    const paused = await graph.getState("t");
    expect(paused.values).toEqual({ answers: [], note: "edited" });
    expect(paused.next).toEqual(["a", "b", "extra"]);
    expect(paused.interrupts).toEqual([qb]);

    const done = await graph.invoke(new Command({ resume: { [qb?.id as string]: "no" } }), { threadId: "t" });
    expect(done).toEqual({ answers: ["a:yes", "b:no", "extra"], note: "edited" });
    // Finished tasks are not run again: extra once, a and b twice each (first run, answered run).
    expect(log.take()).toEqual(["b"]);
    expect(log.count("extra")).toBe(1);
  });

  it("a bad update key or goto target is refused before anything runs", async () => {
    const log = new RunLog();
    const graph = twoAsks(log);
    const first = await graph.invoke({}, { threadId: "bad" });
    const resume = Object.fromEntries((first.__interrupt__ as Interrupt[]).map((i) => [i.id, "x"]));
    log.take();
    await expect(graph.invoke(new Command({ resume, update: { nope: 1 } as never }), { threadId: "bad" })).rejects.toBeInstanceOf(
      InvalidUpdateError,
    );
    await expect(graph.invoke(new Command({ resume, goto: "missing" }), { threadId: "bad" })).rejects.toBeInstanceOf(InvalidCommandError);
    expect(log.take()).toEqual([]);
    expect((await graph.invoke(new Command({ resume }), { threadId: "bad" })).answers).toEqual(["a:x", "b:x"]);
  });
});

describe.each(SAVERS)("Command input without resume ($name)", (kind) => {
  const saver = useSaver(kind);

  function ab(log: RunLog, options: { interruptBefore?: string[] } = {}) {
    return new StateGraph({ log: list() })
      .addNode(
        "a",
        () => {
          log.hit("a");
          return { log: ["a"] };
        },
        { ends: ["b"] },
      )
      .addNode("b", () => {
        log.hit("b");
        return { log: ["b"] };
      })
      .addEdge(START, "a")
      .addEdge("a", END)
      .addEdge("b", END)
      .compile({ checkpointer: saver(), ...options });
  }

  it("Command({ goto, update }) without resume starts the run at the goto target with the update applied", async () => {
    const log = new RunLog();
    const graph = ab(log);
    expect(await graph.invoke(new Command({ goto: "b", update: { log: ["u"] } }), { threadId: "fresh" })).toEqual({ log: ["u", "b"] });
    expect(log.take()).toEqual(["b"]);
    const history = [];
    for await (const s of graph.getStateHistory("fresh")) history.push([s.metadata?.source, s.metadata?.step, s.next]);
    expect(history).toEqual([
      ["loop", 0, []],
      ["input", -1, ["b"]],
    ]);

    await graph.invoke({ log: ["in"] }, { threadId: "used" });
    log.take();
    expect(await graph.invoke(new Command({ goto: "b", update: { log: ["u"] } }), { threadId: "used" })).toEqual({ log: ["in", "a", "u", "b"] });
    expect(log.take()).toEqual(["b"]);
    // An update alone is applied as input; nothing is planned after it.
    expect(await graph.invoke(new Command({ update: { log: ["u2"] } }), { threadId: "used" })).toEqual({ log: ["in", "a", "u", "b", "u2"] });
    expect(log.take()).toEqual([]);
  });

  it("the goto target is not stopped by its own interruptBefore (the caller sent it there)", async () => {
    const log = new RunLog();
    const graph = ab(log, { interruptBefore: ["b"] });
    expect(await graph.invoke(new Command({ goto: "b" }), { threadId: "bp" })).toEqual({ log: ["b"] });
    expect(log.take()).toEqual(["b"]);
  });

  it("is refused while interrupts are pending, and an empty Command is refused", async () => {
    const graph = new StateGraph({ log: list() })
      .addNode("ask", () => ({ log: [interrupt<string>("q")] }))
      .addEdge(START, "ask")
      .compile({ checkpointer: saver() });
    await graph.invoke({}, { threadId: "p" });
    await expect(graph.invoke(new Command({ update: { log: ["u"] } }), { threadId: "p" })).rejects.toBeInstanceOf(PendingInterruptsError);
    await expect(graph.invoke(new Command({}), { threadId: "e" })).rejects.toBeInstanceOf(InvalidCommandError);
  });
});
