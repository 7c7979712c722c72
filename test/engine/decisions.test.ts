/**
 * DESIGN.md "Interrupts and resume": where Switchboard decides differently
 * from LangGraph. Interrupt ids per occurrence and stable across replays,
 * strict resume, partial resume, named errors for misuse, one run per thread.
 */
import { describe, expect, it } from "vitest";
import {
  AmbiguousResumeError,
  Command,
  END,
  InterruptAlreadyAnsweredError,
  InterruptSwallowedError,
  InterruptValueNotSerializableError,
  MissingCheckpointerError,
  MissingThreadIdError,
  NothingToResumeError,
  PendingInterruptsError,
  START,
  StateGraph,
  ThreadBusyError,
  UnknownInterruptError,
  interrupt,
  lastValue,
  type Checkpointer,
  type Interrupt,
} from "../../engine/index.ts";
import { RunLog, SAVERS, deferred, useSaver } from "./fixtures.ts";

const ids = (out: { __interrupt__?: Interrupt[] }) => (out.__interrupt__ ?? []).map((i) => i.id);

function threeQuestions(log: RunLog, checkpointer: Checkpointer) {
  return new StateGraph({ username: lastValue<string>(), age: lastValue<number>(), gender: lastValue<string>() })
    .addNode("get_info", () => {
      log.hit("get_info");
      const username = interrupt<string>("username?");
      const age = interrupt<number>("age?");
      const gender = interrupt<string>("gender?");
      return { username, age, gender };
    })
    .addEdge(START, "get_info")
    .addEdge("get_info", END)
    .compile({ checkpointer });
}

function twoParallel(log: RunLog, checkpointer: Checkpointer) {
  return new StateGraph({ username: lastValue<string>(), age: lastValue<number>() })
    .addNode("node_a", () => {
      log.hit("node_a");
      return { username: interrupt<string>("name?") };
    })
    .addNode("node_b", () => {
      log.hit("node_b");
      return { age: interrupt<number>("age?") };
    })
    .addEdge(START, "node_a")
    .addEdge(START, "node_b")
    .addEdge("node_a", END)
    .addEdge("node_b", END)
    .compile({ checkpointer });
}

/** A checkpointer that loses the first saved interrupt: as if the process died between the pause and its save. */
function losingFirstInterrupt(inner: Checkpointer): Checkpointer {
  let lost = false;
  return {
    getTuple: (config) => inner.getTuple(config),
    list: (config, options) => inner.list(config, options),
    put: (config, checkpoint, metadata) => inner.put(config, checkpoint, metadata),
    putWrites: async (config, writes, taskId) => {
      if (!lost && writes.some(([channel]) => channel === "__interrupt__")) {
        lost = true;
        return;
      }
      await inner.putWrites(config, writes, taskId);
    },
    deleteThread: (threadId) => inner.deleteThread(threadId),
  };
}

describe.each(SAVERS)("interrupt ids ($name)", (kind) => {
  const saver = useSaver(kind);

  it("are unique per occurrence: three sequential interrupts in one node get three ids", async () => {
    const log = new RunLog();
    const graph = threeQuestions(log, saver());
    const t = { threadId: "t" };
    const [id1] = ids(await graph.invoke({}, t)) as [string];
    const [id2] = ids(await graph.invoke(new Command({ resume: { [id1]: "小黄" } }), t)) as [string];
    const [id3] = ids(await graph.invoke(new Command({ resume: { [id2]: 15 } }), t)) as [string];
    expect(new Set([id1, id2, id3]).size).toBe(3);
    expect(log.count("get_info")).toBe(3);

    // The first id answered the first question; it can never answer the third.
    const stale = graph.invoke(new Command({ resume: { [id1]: "female" } }), t);
    await expect(stale).rejects.toBeInstanceOf(InterruptAlreadyAnsweredError);
    await expect(stale).rejects.toMatchObject({ code: "INTERRUPT_ALREADY_ANSWERED", interruptId: id1 });
    expect(log.count("get_info")).toBe(3);
    expect((await graph.getState("t")).interrupts.map((i) => [i.id, i.value])).toEqual([[id3, "gender?"]]);

    expect(await graph.invoke(new Command({ resume: { [id3]: "male" } }), t)).toEqual({ username: "小黄", age: 15, gender: "male" });
  });

  it("are stable when the same interrupt is reported again: invoke(null) and a restarted graph", async () => {
    const log = new RunLog();
    const graph = twoParallel(log, saver());
    const first = await graph.invoke({}, { threadId: "t" });
    expect(first.__interrupt__).toHaveLength(2);

    // Continuing without an answer reports the same questions under the same ids, without re-running.
    const again = await graph.invoke(null, { threadId: "t" });
    expect(again.__interrupt__).toEqual(first.__interrupt__);
    expect(log.entries.sort()).toEqual(["node_a", "node_b"]);

    // Another graph object over the same checkpointer (a restart): the same ids, and old answers apply.
    const restarted = twoParallel(log, saver());
    expect((await restarted.getState("t")).interrupts).toEqual(first.__interrupt__);
    const [a, b] = first.__interrupt__ as [Interrupt, Interrupt];
    expect(await restarted.invoke(new Command({ resume: { [a.id]: "小黄", [b.id]: 19 } }), { threadId: "t" })).toEqual({ username: "小黄", age: 19 });
  });

  it("are stable when the task runs again and raises it again (the pause was never saved)", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ name: lastValue<string>() })
      .addNode("ask", () => {
        log.hit("ask");
        return { name: interrupt<string>("name?") };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: losingFirstInterrupt(saver()) });
    const [shown] = ids(await graph.invoke({}, { threadId: "t" }));
    expect((await graph.getState("t")).interrupts).toEqual([]);

    // The task is run again from scratch and asks the same question under the same id ...
    expect(ids(await graph.invoke(null, { threadId: "t" }))).toEqual([shown]);
    expect(log.count("ask")).toBe(2);
    // ... so an answer given to the id the reviewer saw first still applies.
    expect(await graph.invoke(new Command({ resume: { [shown as string]: "小黄" } }), { threadId: "t" })).toEqual({ name: "小黄" });
    expect(log.count("ask")).toBe(3);
  });

  it("differ between threads for the same node and question", async () => {
    const graph = threeQuestions(new RunLog(), saver());
    const [x] = ids(await graph.invoke({}, { threadId: "x" }));
    const [y] = ids(await graph.invoke({}, { threadId: "y" }));
    expect(x).not.toBe(y);
  });
});

describe.each(SAVERS)("strict resume ($name)", (kind) => {
  const saver = useSaver(kind);

  it("a bare value with two interrupts pending is ambiguous; nothing runs", async () => {
    const log = new RunLog();
    const graph = twoParallel(log, saver());
    const paused = await graph.invoke({}, { threadId: "t" });
    const bare = graph.invoke(new Command({ resume: "小黄" }), { threadId: "t" });
    await expect(bare).rejects.toBeInstanceOf(AmbiguousResumeError);
    await expect(bare).rejects.toMatchObject({ code: "AMBIGUOUS_RESUME", pending: ids(paused) });
    expect(log.entries).toHaveLength(2);
    expect((await graph.getState("t")).interrupts).toEqual(paused.__interrupt__);
  });

  it("an id that is not pending is unknown", async () => {
    const log = new RunLog();
    const graph = twoParallel(log, saver());
    const paused = await graph.invoke({}, { threadId: "t" });
    const unknown = "0".repeat(32);
    const [a] = ids(paused) as [string];
    const call = graph.invoke(new Command({ resume: { [a]: "小黄", [unknown]: 1 } }), { threadId: "t" });
    await expect(call).rejects.toBeInstanceOf(UnknownInterruptError);
    await expect(call).rejects.toMatchObject({ code: "UNKNOWN_INTERRUPT", interruptId: unknown });
    // All or nothing: the valid half of the map was not applied either.
    expect(log.entries).toHaveLength(2);
    expect((await graph.getState("t")).interrupts).toHaveLength(2);
  });

  it("UnknownInterruptError carries the pending ids as a field, like the other resume errors", async () => {
    const graph = twoParallel(new RunLog(), saver());
    const paused = await graph.invoke({}, { threadId: "t" });
    const unknown = "f".repeat(32);
    const error = await graph.invoke(new Command({ resume: { [unknown]: 1 } }), { threadId: "t" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownInterruptError);
    expect(error).toMatchObject({ interruptId: unknown, pending: ids(paused) });
  });

  it("an id answered before is already answered, also after the run finished", async () => {
    const log = new RunLog();
    const graph = threeQuestions(log, saver());
    const t = { threadId: "t" };
    const [id1] = ids(await graph.invoke({}, t)) as [string];
    const [id2] = ids(await graph.invoke(new Command({ resume: { [id1]: "a" } }), t)) as [string];
    const [id3] = ids(await graph.invoke(new Command({ resume: { [id2]: 1 } }), t)) as [string];
    await graph.invoke(new Command({ resume: { [id3]: "b" } }), t);
    await expect(graph.invoke(new Command({ resume: { [id2]: 2 } }), t)).rejects.toBeInstanceOf(InterruptAlreadyAnsweredError);
    expect(log.count("get_info")).toBe(4);
    expect((await graph.getState("t")).values).toEqual({ username: "a", age: 1, gender: "b" });
  });

  it("a resume on a finished or an empty thread has nothing to resume", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("inc", (s) => {
        log.hit("inc");
        return { n: s.n + 1 };
      })
      .addEdge(START, "inc")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({ n: 0 }, { threadId: "done" })).toEqual({ n: 1 });
    const finished = graph.invoke(new Command({ resume: "yes" }), { threadId: "done" });
    await expect(finished).rejects.toBeInstanceOf(NothingToResumeError);
    await expect(finished).rejects.toMatchObject({ code: "NOTHING_TO_RESUME" });
    await expect(graph.invoke(new Command({ resume: "yes" }), { threadId: "never-ran" })).rejects.toBeInstanceOf(NothingToResumeError);
    expect(log.count("inc")).toBe(1);
  });

  it("new input while interrupts are pending is refused; the pause stays", async () => {
    const log = new RunLog();
    const graph = twoParallel(log, saver());
    const paused = await graph.invoke({}, { threadId: "t" });
    const input = graph.invoke({ username: "new topic" }, { threadId: "t" });
    await expect(input).rejects.toBeInstanceOf(PendingInterruptsError);
    await expect(input).rejects.toMatchObject({ code: "PENDING_INTERRUPTS", pending: ids(paused) });
    expect(log.entries).toHaveLength(2);
    const state = await graph.getState("t");
    expect(state.values).toEqual({});
    expect(state.interrupts).toEqual(paused.__interrupt__);
  });
});

describe.each(SAVERS)("partial resume ($name)", (kind) => {
  const saver = useSaver(kind);

  it("re-runs only the answered task; the other stays pending with the same id", async () => {
    const log = new RunLog();
    const graph = twoParallel(log, saver());
    const t = { threadId: "t" };
    const paused = await graph.invoke({}, t);
    const [a, b] = paused.__interrupt__ as [Interrupt, Interrupt];
    expect([a.value, b.value]).toEqual(["name?", "age?"]);

    const half = await graph.invoke(new Command({ resume: { [a.id]: "小黄" } }), t);
    expect(half.__interrupt__).toEqual([b]);
    expect([log.count("node_a"), log.count("node_b")]).toEqual([2, 1]);
    const state = await graph.getState("t");
    expect(state.interrupts).toEqual([b]);
    expect(state.next).toEqual(["node_a", "node_b"]);
    expect(state.tasks.map((t) => t.result)).toEqual([{ username: "小黄" }, null]);

    // The answered id is spent; the open one is the only thing to answer now.
    await expect(graph.invoke(new Command({ resume: { [a.id]: "again" } }), t)).rejects.toBeInstanceOf(InterruptAlreadyAnsweredError);

    expect(await graph.invoke(new Command({ resume: { [b.id]: 19 } }), t)).toEqual({ username: "小黄", age: 19 });
    expect([log.count("node_a"), log.count("node_b")]).toEqual([2, 2]);
  });

  it("with one interrupt left open, a bare value answers it", async () => {
    const log = new RunLog();
    const graph = twoParallel(log, saver());
    const [a] = (await graph.invoke({}, { threadId: "t" })).__interrupt__ as [Interrupt, Interrupt];
    await graph.invoke(new Command({ resume: { [a.id]: "小黄" } }), { threadId: "t" });
    expect(await graph.invoke(new Command({ resume: 19 }), { threadId: "t" })).toEqual({ username: "小黄", age: 19 });
    expect([log.count("node_a"), log.count("node_b")]).toEqual([2, 2]);
  });
});

describe.each(SAVERS)("misuse of interrupt() ($name)", (kind) => {
  const saver = useSaver(kind);

  it("an interrupt swallowed by try/catch fails the task with a named error", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ name: lastValue<string>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        try {
          interrupt("What's your name?");
        } catch {
          log.hit("caught");
        }
        return { name: "fallback" };
      })
      .addEdge(START, "node_a")
      .compile({ checkpointer: saver() });
    const run = graph.invoke({}, { threadId: "t" });
    await expect(run).rejects.toBeInstanceOf(InterruptSwallowedError);
    await expect(run).rejects.toMatchObject({ code: "INTERRUPT_SWALLOWED" });
    expect(log.entries).toEqual(["node_a", "caught"]);
    // Neither the fallback nor an interrupt reached the state.
    const state = await graph.getState("t");
    expect(state.values).toEqual({});
    expect(state.interrupts).toEqual([]);
  });

  it.each([
    ["a function", { question: "What's your name?", validator: (v: string) => v.length > 0 }, "$.validator"],
    ["a function in a list", { items: [1, { fn: () => 1 }] }, "$.items[1].fn"],
    ["a class instance", { processor: new (class DataProcessor {})() }, "$.processor"],
    ["a bigint", [BigInt(1)], "$[0]"],
    ["a key that is not an identifier", { "two words": Symbol("x") }, '$["two words"]'],
  ])("a payload with %s is not serializable, with its path", async (_label, payload, path) => {
    const log = new RunLog();
    const graph = new StateGraph({ name: lastValue<string>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        return { name: interrupt<string>(payload) };
      })
      .addEdge(START, "node_a")
      .compile({ checkpointer: saver() });
    const run = graph.invoke({}, { threadId: "t" });
    await expect(run).rejects.toBeInstanceOf(InterruptValueNotSerializableError);
    await expect(run).rejects.toMatchObject({ code: "INTERRUPT_NOT_SERIALIZABLE", path });
    expect(log.count("node_a")).toBe(1);
    expect((await graph.getState("t")).interrupts).toEqual([]);
  });

  it("the serializability error is thrown at the call site, where the node can see it", async () => {
    let seen: unknown;
    const graph = new StateGraph({ name: lastValue<string>() })
      .addNode("node_a", () => {
        try {
          interrupt({ validator: () => true });
        } catch (error) {
          seen = error;
        }
        return { name: interrupt<string>("plain question") };
      })
      .addEdge(START, "node_a")
      .compile({ checkpointer: saver() });
    const out = await graph.invoke({}, { threadId: "t" });
    expect(seen).toBeInstanceOf(InterruptValueNotSerializableError);
    expect((seen as InterruptValueNotSerializableError).path).toBe("$.validator");
    expect(out.__interrupt__?.map((i) => i.value)).toEqual(["plain question"]);
  });
});

describe("interrupt() needs a checkpointer and a thread", () => {
  it("without a checkpointer it fails with MissingCheckpointerError", async () => {
    const graph = new StateGraph({ name: lastValue<string>() })
      .addNode("node_a", () => ({ name: interrupt<string>("name?") }))
      .addEdge(START, "node_a")
      .compile();
    const run = graph.invoke({});
    await expect(run).rejects.toBeInstanceOf(MissingCheckpointerError);
    await expect(run).rejects.toMatchObject({ code: "MISSING_CHECKPOINTER" });
    await expect(graph.invoke(new Command({ resume: "x" }))).rejects.toBeInstanceOf(MissingCheckpointerError);
  });

  it.each(SAVERS)("with a checkpointer but no threadId it fails with MissingThreadIdError ($name)", async (kind) => {
    const { saver, dispose } = await kind.make();
    try {
      const graph = new StateGraph({ name: lastValue<string>() })
        .addNode("node_a", () => ({ name: interrupt<string>("name?") }))
        .addEdge(START, "node_a")
        .compile({ checkpointer: saver });
      await expect(graph.invoke({})).rejects.toBeInstanceOf(MissingThreadIdError);
    } finally {
      await dispose();
    }
  });
});

describe.each(SAVERS)("one run per thread ($name)", (kind) => {
  const saver = useSaver(kind);

  it("a second invoke or resume on a busy thread is rejected; other threads run", async () => {
    const log = new RunLog();
    const started = deferred();
    const release = deferred();
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("slow", async (s) => {
        log.hit("slow");
        if (s.n === 0) {
          started.resolve();
          await release.promise;
        }
        return { n: s.n + 1 };
      })
      .addEdge(START, "slow")
      .compile({ checkpointer: saver() });

    const first = graph.invoke({ n: 0 }, { threadId: "busy" });
    await started.promise;
    const second = graph.invoke({ n: 10 }, { threadId: "busy" });
    await expect(second).rejects.toBeInstanceOf(ThreadBusyError);
    await expect(second).rejects.toMatchObject({ code: "THREAD_BUSY", threadId: "busy" });
    await expect(graph.invoke(new Command({ resume: 1 }), { threadId: "busy" })).rejects.toBeInstanceOf(ThreadBusyError);
    await expect(graph.updateState("busy", { n: 5 }, { asNode: "slow" })).rejects.toBeInstanceOf(ThreadBusyError);
    expect(await graph.invoke({ n: 5 }, { threadId: "other" })).toEqual({ n: 6 });

    release.resolve();
    expect(await first).toEqual({ n: 1 });
    expect(log.entries).toEqual(["slow", "slow"]);
    // Free again once the run ended.
    expect(await graph.invoke({ n: 1 }, { threadId: "busy" })).toEqual({ n: 2 });
  });
});
