import { describe, expect, it, vi } from "vitest";
import {
  Command,
  END,
  MemorySaver,
  START,
  StateGraph,
  interrupt,
  lastValue,
  reducer,
  type StreamPart,
} from "../../../engine/index.ts";
import { collect, deferred, isPlainJson } from "./helpers.ts";

const concat = <T>() => reducer((a: T[], b: T[]) => [...a, ...b], () => [] as T[]);

function chain() {
  return new StateGraph({ n: lastValue<number>(), log: concat<string>() })
    .addNode("a", (s) => ({ n: s.n + 1, log: ["a"] }))
    .addNode("b", (s) => ({ n: s.n * 10, log: ["b"] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile();
}

describe("values and updates", () => {
  it("values: the input state, then the state after each step", async () => {
    const parts = await collect(chain().stream({ n: 1 }, { streamMode: "values" }));
    expect(parts.map((p) => p.data)).toEqual([
      { n: 1, log: [] },
      { n: 2, log: ["a"] },
      { n: 20, log: ["a", "b"] },
    ]);
    expect(parts.every((p) => p.type === "values" && p.ns.length === 0)).toBe(true);
  });

  it("updates: one part per task with the node's own writes", async () => {
    const parts = await collect(chain().stream({ n: 1 }, { streamMode: "updates" }));
    expect(parts.map((p) => p.data)).toEqual([{ a: { n: 2, log: ["a"] } }, { b: { n: 20, log: ["b"] } }]);
  });

  it("parallel tasks report updates as they finish, before the step's values", async () => {
    const slowMayFinish = deferred();
    const graph = new StateGraph({ log: concat<string>() })
      .addNode("slow", async () => {
        await slowMayFinish.promise;
        return { log: ["slow"] };
      })
      .addNode("fast", () => ({ log: ["fast"] }))
      .addEdge(START, "slow")
      .addEdge(START, "fast")
      .compile();
    const seen: StreamPart[] = [];
    for await (const part of graph.stream({}, { streamMode: ["updates", "values"] })) {
      seen.push(part);
      // The fast task's update arrives while the slow one is still running.
      if (part.type === "updates" && "fast" in part.data) slowMayFinish.resolve();
    }
    expect(seen.map((p) => (p.type === "updates" ? Object.keys(p.data)[0] : "values"))).toEqual([
      "values",
      "fast",
      "slow",
      "values",
    ]);
    expect(seen.at(-1)?.data).toEqual({ log: ["fast", "slow"] });
  });

  it("several modes at once share one ordered stream", async () => {
    const parts = await collect(chain().stream({ n: 1 }, { streamMode: ["values", "updates", "tasks"] }));
    expect(parts.map((p) => p.type)).toEqual([
      "values",
      "tasks",
      "updates",
      "tasks",
      "values",
      "tasks",
      "updates",
      "tasks",
      "values",
    ]);
  });

  it("invoke returns what the values stream ends with", async () => {
    const parts = await collect(chain().stream({ n: 3 }, { streamMode: "values" }));
    expect(await chain().invoke({ n: 3 })).toEqual(parts.at(-1)?.data);
  });
});

describe("custom", () => {
  it("custom parts arrive while the node is still running", async () => {
    const consumerSawProgress = deferred();
    const graph = new StateGraph({ done: lastValue<boolean>() })
      .addNode("work", async (_s, rt) => {
        rt.write({ progress: 0.5 });
        // Finishing depends on the consumer having received the custom part.
        await consumerSawProgress.promise;
        rt.write({ progress: 1 });
        return { done: true };
      })
      .addEdge(START, "work")
      .compile();
    const seen: string[] = [];
    for await (const part of graph.stream({}, { streamMode: ["custom", "updates"] })) {
      seen.push(`${part.type}:${JSON.stringify(part.data)}`);
      if (part.type === "custom") consumerSawProgress.resolve();
    }
    expect(seen).toEqual(['custom:{"progress":0.5}', 'custom:{"progress":1}', 'updates:{"work":{"done":true}}']);
  });

  it("nothing is built for modes nobody subscribed to", async () => {
    let wrote = 0;
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("n", (_s, rt) => {
        rt.write("ignored");
        wrote += 1;
        return { x: 1 };
      })
      .addEdge(START, "n")
      .compile();
    const parts = await collect(graph.stream({}, { streamMode: "updates" }));
    expect(wrote).toBe(1);
    expect(parts.map((p) => p.type)).toEqual(["updates"]);
  });
});

describe("interrupts in the stream", () => {
  const build = (runs: Record<string, number>) =>
    new StateGraph({ name: lastValue<string>(), age: lastValue<number>() })
      .addNode("ask", () => {
        runs.ask = (runs.ask ?? 0) + 1;
        return { name: interrupt<string>("name?") };
      })
      .addNode("fixed", () => {
        runs.fixed = (runs.fixed ?? 0) + 1;
        return { age: 12 };
      })
      .addEdge(START, "ask")
      .addEdge(START, "fixed")
      .addEdge("ask", END)
      .compile({ checkpointer: new MemorySaver() });

  it("a pause is an updates part { __interrupt__ }; the resumed run replays the finished task's writes", async () => {
    const runs: Record<string, number> = {};
    const graph = build(runs);
    const first = await collect(graph.stream({}, { threadId: "t", streamMode: "updates" }));
    const pause = first.find((p) => "__interrupt__" in (p.data as object));
    expect(first.map((p) => Object.keys(p.data as object)[0]).sort()).toEqual(["__interrupt__", "fixed"]);
    const [question] = (pause?.data as { __interrupt__: Array<{ id: string; value: unknown }> }).__interrupt__;
    expect(question?.value).toBe("name?");

    const second = await collect(graph.stream(new Command({ resume: "Ada" }), { threadId: "t", streamMode: "updates" }));
    expect(second.map((p) => p.data)).toEqual([{ fixed: { age: 12 }, __metadata__: { cached: true } }, { ask: { name: "Ada" } }]);
    expect(runs).toEqual({ ask: 2, fixed: 1 });
    expect(await graph.invoke(null, { threadId: "t" })).toEqual({ name: "Ada", age: 12 });
  });

  it("values mode shows the pause as { __interrupt__ }", async () => {
    const graph = build({});
    const parts = await collect(graph.stream({}, { threadId: "v", streamMode: "values" }));
    expect(Object.keys(parts.at(-1)?.data as object)).toEqual(["__interrupt__"]);
  });
});

describe("tasks, checkpoints and debug payloads are plain JSON", () => {
  it("never carry config objects, callbacks, checkpointers or private channels", async () => {
    const graph = new StateGraph({ shown: lastValue<string>(), secret: lastValue<string>({ private: true }) })
      .addNode("n", () => ({ shown: "ok", secret: "s3cret-token" }))
      .addNode("m", (s) => ({ shown: `${s.shown}!` }))
      .addEdge(START, "n")
      .addEdge("n", "m")
      .compile({ checkpointer: new MemorySaver() });
    const parts = await collect(
      graph.stream({ secret: "initial-secret" }, { threadId: "p", streamMode: ["tasks", "checkpoints", "debug", "values", "updates"] }),
    );
    expect(parts.length).toBeGreaterThan(6);
    for (const part of parts) {
      expect(isPlainJson(part.data)).toBe(true);
      expect(JSON.stringify(part.data)).not.toMatch(/secret/);
    }
    const checkpoints = parts.filter((p) => p.type === "checkpoints");
    expect(checkpoints.map((p) => (p.data as unknown as { metadata: { step: number } }).metadata.step)).toEqual([-1, 0, 1, 2]);
    expect(checkpoints.at(-1)?.data).toMatchObject({ next: [], values: { shown: "ok!" } });
    const debugTypes = new Set(parts.filter((p) => p.type === "debug").map((p) => (p.data as { type: string }).type));
    expect(debugTypes).toEqual(new Set(["task", "task_result", "checkpoint"]));
    // The private channel is still checkpointed and readable by nodes.
    expect((await graph.getState("p")).values).toEqual({ shown: "ok!" });
  });
});

describe("stream lifecycle", () => {
  it("breaking out of the loop cancels the run and aborts the running node's signal", async () => {
    let aborted = false;
    const graph = new StateGraph({ x: lastValue<number>() })
      .addNode("a", () => ({ x: 1 }))
      .addNode("b", async (_s, rt) => {
        await new Promise((_, reject) =>
          rt.signal.addEventListener("abort", () => {
            aborted = true;
            reject(rt.signal.reason);
          }),
        );
        return { x: 2 };
      })
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    for await (const part of graph.stream({}, { streamMode: "tasks" })) {
      if ((part.data as { name: string }).name === "b") break;
    }
    await vi.waitFor(() => expect(aborted).toBe(true));
  });

  it("an unknown stream mode is a clear error", () => {
    expect(() => chain().stream({ n: 1 }, { streamMode: "everything" as never })).toThrow(/unknown stream mode "everything"/);
  });
});
