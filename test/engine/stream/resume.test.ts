/**
 * What a resumed run streams, compared with LangGraph.js 1.7.3: a partial
 * resume reports the interrupts still open, updates replayed from before the
 * pause are marked cached, and leaving a stream early releases the thread
 * before the loop exits.
 */
import { describe, expect, it } from "vitest";
import { Command, START, StateGraph, interrupt, reducer, type Checkpointer, type Interrupt } from "../../../engine/index.ts";
import { RunLog, SAVERS, collect, useSaver } from "../fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

/** a and b ask, c finishes in the same step. */
function twoAsksAndAWorker(log: RunLog, checkpointer: Checkpointer) {
  return new StateGraph({ log: list() })
    .addNode("a", () => {
      log.hit("a");
      return { log: [`a:${interrupt<string>("a?")}`] };
    })
    .addNode("b", () => {
      log.hit("b");
      return { log: [`b:${interrupt<string>("b?")}`] };
    })
    .addNode("c", () => {
      log.hit("c");
      return { log: ["c"] };
    })
    .addEdge(START, "a")
    .addEdge(START, "b")
    .addEdge(START, "c")
    .compile({ checkpointer });
}

describe.each(SAVERS)("resumed streams ($name)", (kind) => {
  const saver = useSaver(kind);

  it("a partial resume in updates mode reports the interrupts still pending, as the first pause does", async () => {
    const graph = twoAsksAndAWorker(new RunLog(), saver());
    const first = await collect(graph.stream({}, { threadId: "t", streamMode: "updates" }));
    const asked = first.flatMap((p) => ((p.data as { __interrupt__?: Interrupt[] }).__interrupt__ ?? []));
    const [qa, qb] = asked;
    expect(asked.map((i) => i.value)).toEqual(["a?", "b?"]);

    const second = await collect(graph.stream(new Command({ resume: { [qa?.id as string]: "A" } }), { threadId: "t", streamMode: "updates" }));
    expect(second.map((p) => p.data)).toContainEqual({ __interrupt__: [qb] });
    expect((await graph.getState("t")).interrupts).toEqual([qb]);
  });

  it("updates replayed from tasks that finished before the pause are marked cached; new work is not", async () => {
    const log = new RunLog();
    const graph = twoAsksAndAWorker(log, saver());
    const paused = await graph.invoke({}, { threadId: "t" });
    const [qa, qb] = paused.__interrupt__ as Interrupt[];
    log.take();

    // LangGraph's order: the replays first, then what is still open, then the work done now.
    const second = await collect(graph.stream(new Command({ resume: { [qa?.id as string]: "A" } }), { threadId: "t", streamMode: "updates" }));
    expect(second.map((p) => p.data)).toEqual([{ c: { log: ["c"] }, __metadata__: { cached: true } }, { __interrupt__: [qb] }, { a: { log: ["a:A"] } }]);
    const third = await collect(graph.stream(new Command({ resume: { [qb?.id as string]: "B" } }), { threadId: "t", streamMode: "updates" }));
    expect(third.map((p) => p.data)).toEqual([
      { a: { log: ["a:A"] }, __metadata__: { cached: true } },
      { c: { log: ["c"] }, __metadata__: { cached: true } },
      { b: { log: ["b:B"] } },
    ]);
    // A consumer that sums the updates not marked cached counts each task once.
    const fresh = [...second, ...third].flatMap((p) => {
      const data = p.data as Record<string, unknown>;
      return "__metadata__" in data ? [] : Object.keys(data).filter((k) => k !== "__interrupt__");
    });
    expect(fresh).toEqual(["a", "b"]);
    expect(log.take()).toEqual(["a", "b"]);
    expect((await graph.getState("t")).values).toEqual({ log: ["a:A", "b:B", "c"] });
  });

  it("leaving a stream early waits for the run to release the thread: the next invoke works", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ log: list() })
      .addNode("a", () => {
        log.hit("a");
        return { log: ["a"] };
      })
      .addNode("b", async (_s, rt) => {
        log.hit("b");
        // Holds the step until the run is cancelled (or, in the second run, finishes at once).
        if (log.count("b") === 1) await new Promise((_, reject) => rt.signal.addEventListener("abort", () => reject(rt.signal.reason)));
        return { log: ["b"] };
      })
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: saver() });
    for await (const part of graph.stream({}, { threadId: "t", streamMode: "updates" })) {
      expect(part.data).toEqual({ a: { log: ["a"] } });
      break;
    }
    // No wait here: the break itself waited for the run to let go of the thread.
    const out = await graph.invoke(null, { threadId: "t" });
    expect(out).toEqual({ log: ["a", "b"] });
    // a finished before the break: its saved writes are used, it does not run again.
    expect(log.entries).toEqual(["a", "b", "b"]);
  });
});
