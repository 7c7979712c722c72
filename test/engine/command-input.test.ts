/**
 * Command({ resume, update, goto }) as run input: the answer goes to the
 * interrupt; update and goto land when the resumed step completes, as if one
 * more task of that step had written them — also when the step pauses again
 * first (partial resume).
 */
import { describe, expect, it } from "vitest";
import { Command, END, InvalidCommandError, InvalidUpdateError, START, StateGraph, interrupt, lastValue, reducer, type Interrupt } from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

describe.each(SAVERS)("Command input with update and goto ($name)", (kind) => {
  const saver = useSaver(kind);

  function build(log: RunLog) {
    return new StateGraph({ answers: list(), note: lastValue<string>() })
      .addNode(
        "a",
        () => {
          log.hit("a");
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

  it("update and goto apply once the step completes, after a second partial resume", async () => {
    const log = new RunLog();
    const graph = build(log);
    const first = await graph.invoke({}, { threadId: "t" });
    const [qa, qb] = first.__interrupt__ as Interrupt[];
    expect(qa?.value).toBe("a?");
    const second = await graph.invoke(new Command({ resume: { [qa?.id as string]: "yes" }, update: { note: "edited" }, goto: "extra" }), {
      threadId: "t",
    });
    // b is still open: the step has not completed, so neither the update nor goto applied yet.
    expect(second.__interrupt__?.map((i) => i.id)).toEqual([qb?.id]);
    expect((await graph.getState("t")).values).toEqual({ answers: [] });
    const done = await graph.invoke(new Command({ resume: { [qb?.id as string]: "no" } }), { threadId: "t" });
    expect(done).toEqual({ answers: ["a:yes", "b:no", "extra"], note: "edited" });
    expect(log.count("extra")).toBe(1);
    expect(log.count("a")).toBe(2);
    expect(log.count("b")).toBe(2);
  });

  it("a bad update key or goto target is refused before anything runs", async () => {
    const log = new RunLog();
    const graph = build(log);
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

  it("update or goto without resume is refused: use updateState", async () => {
    const graph = build(new RunLog());
    await expect(graph.invoke(new Command({ update: { note: "x" } }), { threadId: "n" })).rejects.toThrow(/needs \{ resume \}/);
  });
});
