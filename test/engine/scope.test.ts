/**
 * The task scope (engine/runtime/scope.ts): node code finds its own task
 * through interrupt() and getWriter() after any chain of awaits, parallel
 * tasks never see each other's, nothing leaks to code outside a task, and
 * a callback that is not a promise reaction gets a clear error instead of
 * another task's context.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import {
  Command,
  END,
  InterruptOutsideTaskError,
  MemorySaver,
  START,
  StateGraph,
  getWriter,
  interrupt,
  ScriptedChatModel,
  humanMessage,
  lastValue,
  messages,
  reducer,
} from "../../engine/index.ts";
import { currentScope, runInScope } from "../../engine/runtime/scope.ts";
import { collect, deferred } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

/** Awaits of every kind a node might do: a timer, I/O turns, a thenable, an async helper, Promise.all. */
async function awaitEverything(tag: string): Promise<void> {
  await sleep(Math.floor(Math.random() * 5));
  await nextTurn();
  await { then: (resolve: (v: string) => void) => setTimeout(() => resolve(tag), 1) };
  await (async () => {
    await sleep(1);
  })();
  await Promise.all([sleep(2), nextTurn(), Promise.resolve(tag)]);
  await new Promise<void>((resolve) => queueMicrotask(resolve));
}

describe("task scope", () => {
  it("parallel nodes each write and interrupt as themselves after interleaved awaits", async () => {
    const names = ["a", "b", "c", "d", "e", "f"];
    let graph = new StateGraph({ answers: list() });
    for (const name of names) {
      graph = graph.addNode(name, async () => {
        const write = getWriter();
        await awaitEverything(name);
        // getWriter() again after the awaits: it must still be this node's writer.
        getWriter()({ from: name });
        write({ early: name });
        await awaitEverything(name);
        const answer = interrupt<string>(`question from ${name}`);
        return { answers: [`${name}=${answer}`] };
      });
      graph = graph.addEdge(START, name).addEdge(name, END);
    }
    const compiled = graph.compile({ checkpointer: new MemorySaver() });

    const parts = await collect(compiled.stream({}, { threadId: "t", streamMode: ["custom", "updates"] }));
    const custom = parts.filter((p) => p.type === "custom");
    expect(custom.map((p) => JSON.stringify(p.data)).sort()).toEqual(names.flatMap((n) => [`{"early":"${n}"}`, `{"from":"${n}"}`]).sort());

    const state = await compiled.getState("t");
    const questions = state.tasks.flatMap((t) => t.interrupts.map((i) => [t.name, i.value]));
    expect(questions.sort()).toEqual(names.map((n) => [n, `question from ${n}`]).sort());

    const resumeMap = Object.fromEntries(state.tasks.flatMap((t) => t.interrupts.map((i) => [i.id, `ok-${t.name}`])));
    const done = await compiled.invoke(new Command({ resume: resumeMap }), { threadId: "t" });
    expect([...(done as { answers: string[] }).answers].sort()).toEqual(names.map((n) => `${n}=ok-${n}`).sort());
  });

  it("writes from parallel subgraphs carry their own subgraph's namespace", async () => {
    const writer = (who: string, pause: () => Promise<unknown>) =>
      new StateGraph({ x: lastValue<number>() })
        .addNode("w", async () => {
          for (let i = 0; i < 5; i++) {
            await pause();
            getWriter()(`${who} ${i}`);
          }
          return {};
        })
        .addEdge(START, "w")
        .compile();
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("left", writer("left", () => sleep(1)))
      .addNode("right", writer("right", () => nextTurn()))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile();
    const parts = await collect(graph.stream({}, { streamMode: "custom", subgraphs: true }));
    expect(parts).toHaveLength(10);
    const byWriter = new Map<string, string[]>();
    for (const p of parts) {
      const text = p.data as string;
      const who = text.split(" ")[0] as string;
      // The namespace is the subgraph task the writer ran in.
      expect(p.ns[0]?.split(":")[0]).toBe(who);
      byWriter.set(who, [...(byWriter.get(who) ?? []), text]);
    }
    expect(byWriter.get("left")).toEqual([0, 1, 2, 3, 4].map((i) => `left ${i}`));
    expect(byWriter.get("right")).toEqual([0, 1, 2, 3, 4].map((i) => `right ${i}`));
  });

  it("a timer callback runs outside the task: interrupt() there fails with InterruptOutsideTaskError", async () => {
    const fromTimer = deferred<unknown>();
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("n", async () => {
        setTimeout(() => {
          try {
            interrupt("from a timer");
            fromTimer.resolve("no error");
          } catch (error) {
            fromTimer.resolve(error);
          }
        }, 1);
        await sleep(5);
        return { x: 1 };
      })
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    expect(await graph.invoke({}, { threadId: "timer" })).toEqual({ x: 1 });
    expect(await fromTimer.promise).toBeInstanceOf(InterruptOutsideTaskError);
  });

  it("nothing of a task leaks to code after it or beside it", async () => {
    const seenOutside: unknown[] = [];
    const gate = deferred();
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("n", async () => {
        await gate.promise;
        return { x: 1 };
      })
      .addEdge(START, "n")
      .compile();
    const running = graph.invoke({});
    // Code that runs while the task is suspended, in timers, I/O turns and promise reactions of its own.
    await sleep(2);
    seenOutside.push(currentScope());
    await nextTurn();
    seenOutside.push(currentScope());
    setTimeout(() => seenOutside.push(currentScope()), 0);
    gate.resolve();
    expect(await running).toEqual({ x: 1 });
    await sleep(2);
    seenOutside.push(currentScope());
    expect(seenOutside).toEqual([undefined, undefined, undefined, undefined]);
    expect(() => interrupt("outside")).toThrow(InterruptOutsideTaskError);
  });

  it("a promise reaction of the task leaves no task current after it", async () => {
    const host = { name: "host" };
    const seen: unknown[] = [];
    // From a fresh macrotask, so the task's reaction is the last one before the check.
    await new Promise<void>((resolve) => {
      setImmediate(() => {
        runInScope(host, () => {
          void Promise.resolve().then(() => seen.push(currentScope()));
        });
        setImmediate(() => {
          seen.push(currentScope());
          resolve();
        });
      });
    });
    expect(seen).toEqual([host, undefined]);
  });

  it("runInScope nests, restores the outer scope, and restores it when fn throws", async () => {
    const outer = { name: "outer" };
    const inner = { name: "inner" };
    const seen: unknown[] = [];
    await runInScope(outer, async () => {
      seen.push(currentScope());
      expect(() =>
        runInScope(inner, () => {
          seen.push(currentScope());
          throw new Error("boom");
        }),
      ).toThrow("boom");
      seen.push(currentScope());
      const fromInner = runInScope(inner, async () => {
        await sleep(1);
        return currentScope();
      });
      seen.push(currentScope());
      seen.push(await fromInner);
      seen.push(currentScope());
    });
    expect(seen).toEqual([outer, inner, outer, outer, inner, outer]);
    expect(currentScope()).toBeUndefined();
  });

  it("after a model call (whose stream runs detached from the task) the node is back in its task", async () => {
    const model = new ScriptedChatModel({ responses: ["hello there"], loop: true });
    const graph = new StateGraph({ messages: messages(), answer: lastValue<string>() })
      .addNode("n", async (s) => {
        const reply = await model.invoke(s.messages);
        getWriter()({ after: "invoke" });
        return { messages: [reply], answer: interrupt<string>("ok?") };
      })
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    const parts = await collect(graph.stream({ messages: [humanMessage("hi")] }, { threadId: "m", streamMode: ["messages", "custom", "updates"] }));
    const text = parts.filter((p) => p.type === "messages").map((p) => (p.data as [{ content: string }, unknown])[0].content).join("");
    expect(text).toBe("hello there");
    expect(parts.filter((p) => p.type === "custom").map((p) => p.data)).toEqual([{ after: "invoke" }]);
    expect((await graph.getState("m")).tasks[0]?.interrupts.map((i) => i.value)).toEqual(["ok?"]);
    const done = await graph.invoke(new Command({ resume: "yes" }), { threadId: "m" });
    expect((done as { answer: string }).answer).toBe("yes");
  });

  it("an async generator's body, and the for-await loop over it, stay in the task", async () => {
    async function* produce() {
      for (let i = 0; i < 3; i++) {
        await sleep(1);
        getWriter()({ gen: i });
        yield i;
      }
    }
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("n", async () => {
        let sum = 0;
        for await (const v of produce()) {
          sum += v;
          getWriter()({ loop: v });
        }
        return { x: sum + interrupt<number>("more?") };
      })
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    const parts = await collect(graph.stream({}, { threadId: "g", streamMode: "custom" }));
    expect(parts.map((p) => p.data)).toEqual([{ gen: 0 }, { loop: 0 }, { gen: 1 }, { loop: 1 }, { gen: 2 }, { loop: 2 }]);
    expect(await graph.invoke(new Command({ resume: 10 }), { threadId: "g" })).toEqual({ x: 13 });
  });

  it("a rejected await continues in the task", async () => {
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("n", async () => {
        try {
          await sleep(1).then(() => Promise.reject(new Error("model failed")));
        } catch {
          // fall through to the question
        }
        return { x: interrupt<number>("retry?") };
      })
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke({}, { threadId: "r" });
    expect(paused.__interrupt__?.[0]?.value).toBe("retry?");
    expect(await graph.invoke(new Command({ resume: 7 }), { threadId: "r" })).toEqual({ x: 7 });
  });
});
