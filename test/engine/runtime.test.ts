/**
 * The runtime's guard rails (DESIGN.md "Supersteps"): recursion limit, retry
 * policy, per-node timeout, cancellation by AbortSignal, and "a task that
 * finished is never run again" after a cancel or a sibling's error.
 */
import { describe, expect, it, vi } from "vitest";
import {
  END,
  GraphRecursionError,
  NodeTimeoutError,
  RunCancelledError,
  START,
  StateGraph,
  lastValue,
  reducer,
  type Checkpointer,
  type CompiledStateGraph,
  type StateSchema,
} from "../../engine/index.ts";
import { RunLog, SAVERS, deferred, useSaver } from "./fixtures.ts";

const list = () => reducer((all: string[], more: string[]) => [...all, ...more], () => []);

/** Resolves when the signal aborts (at once if it already did). */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

/** Waits until the task named `name` has its result saved in the thread's latest checkpoint. */
async function untilSaved<S extends StateSchema>(graph: CompiledStateGraph<S>, threadId: string, name: string): Promise<void> {
  await vi.waitFor(async () => {
    const task = (await graph.getState(threadId)).tasks.find((t) => t.name === name);
    expect(task?.result ?? null).not.toBeNull();
  });
}

describe("recursion limit", () => {
  it("stops a loop that never ends with GraphRecursionError", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("spin", (s) => {
        log.hit("spin");
        return { n: s.n + 1 };
      })
      .addEdge(START, "spin")
      .addConditionalEdges("spin", () => "again", { again: "spin" })
      .compile();
    const run = graph.invoke({ n: 0 }, { recursionLimit: 5 });
    await expect(run).rejects.toBeInstanceOf(GraphRecursionError);
    await expect(run).rejects.toMatchObject({ code: "RECURSION_LIMIT", message: expect.stringContaining("5") });
    // The START step is one of the five.
    expect(log.count("spin")).toBe(4);
  });

  it("lets a loop that ends within the limit finish", async () => {
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("spin", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "spin")
      .addConditionalEdges("spin", (s) => (s.n < 4 ? "again" : "stop"), { again: "spin", stop: END })
      .compile();
    expect(await graph.invoke({ n: 0 }, { recursionLimit: 5 })).toEqual({ n: 4 });
    await expect(graph.invoke({ n: -1 }, { recursionLimit: 5 })).rejects.toBeInstanceOf(GraphRecursionError);
  });
});

describe("retry policy", () => {
  const flaky = (log: RunLog, failures: number) => () => {
    log.hit("flaky");
    if (log.count("flaky") <= failures) throw new Error(`attempt ${log.count("flaky")} failed`);
    return { done: true };
  };

  it("retries a failing node until it succeeds within maxAttempts", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ done: lastValue<boolean>() })
      .addNode("flaky", flaky(log, 2), { retry: { maxAttempts: 3, initialInterval: 1, jitter: false } })
      .addEdge(START, "flaky")
      .compile();
    expect(await graph.invoke({})).toEqual({ done: true });
    expect(log.count("flaky")).toBe(3);
  });

  it("gives up after maxAttempts with the node's own error", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ done: lastValue<boolean>() })
      .addNode("flaky", flaky(log, 5), { retry: { maxAttempts: 2, initialInterval: 1, jitter: false } })
      .addEdge(START, "flaky")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow("attempt 2 failed");
    expect(log.count("flaky")).toBe(2);
  });

  it("does not retry what retryOn refuses, nor without a policy", async () => {
    const refused = new RunLog();
    const g1 = new StateGraph({ done: lastValue<boolean>() })
      .addNode("flaky", flaky(refused, 5), { retry: { maxAttempts: 5, initialInterval: 1, retryOn: () => false } })
      .addEdge(START, "flaky")
      .compile();
    await expect(g1.invoke({})).rejects.toThrow("attempt 1 failed");
    expect(refused.count("flaky")).toBe(1);

    const plain = new RunLog();
    const g2 = new StateGraph({ done: lastValue<boolean>() }).addNode("flaky", flaky(plain, 5)).addEdge(START, "flaky").compile();
    await expect(g2.invoke({})).rejects.toThrow("attempt 1 failed");
    expect(plain.count("flaky")).toBe(1);
  });
});

describe("per-node timeout", () => {
  it("fails the node with NodeTimeoutError and aborts its signal; timeouts are not retried", async () => {
    const log = new RunLog();
    let signal: AbortSignal | undefined;
    const graph = new StateGraph({ done: lastValue<boolean>() })
      .addNode(
        "stuck",
        async (_s, runtime) => {
          log.hit("stuck");
          signal = runtime.signal;
          await aborted(runtime.signal);
          log.hit("stuck:aborted");
          return { done: true };
        },
        { timeoutMs: 20, retry: { maxAttempts: 3, initialInterval: 1 } },
      )
      .addEdge(START, "stuck")
      .compile();
    const run = graph.invoke({});
    await expect(run).rejects.toBeInstanceOf(NodeTimeoutError);
    await expect(run).rejects.toMatchObject({ code: "NODE_TIMEOUT", message: expect.stringContaining('"stuck"') });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(NodeTimeoutError);
    await vi.waitFor(() => expect(log.count("stuck:aborted")).toBe(1));
    expect(log.count("stuck")).toBe(1);
  });
});

function twoBranches(log: RunLog, checkpointer: Checkpointer, slow: (signal: AbortSignal) => Promise<void>) {
  return new StateGraph({ out: list() })
    .addNode("quick", () => {
      log.hit("quick");
      return { out: ["quick"] };
    })
    .addNode("slow", async (_s, runtime) => {
      log.hit("slow");
      await slow(runtime.signal);
      return { out: ["slow"] };
    })
    .addNode("after", () => {
      log.hit("after");
      return { out: ["after"] };
    })
    .addEdge(START, "quick")
    .addEdge(START, "slow")
    .addEdge(["quick", "slow"], "after")
    .compile({ checkpointer });
}

describe.each(SAVERS)("cancellation and failures in a step ($name)", (kind) => {
  const saver = useSaver(kind);

  it("an aborted signal rejects with RunCancelledError, stops the node, and keeps the finished sibling", async () => {
    const log = new RunLog();
    let cancelOnce = true;
    const graph = twoBranches(log, saver(), async (signal) => {
      if (!cancelOnce) return;
      cancelOnce = false;
      await aborted(signal);
      log.hit("slow:aborted");
      throw signal.reason;
    });
    const controller = new AbortController();
    const run = graph.invoke({}, { threadId: "t", signal: controller.signal });
    await untilSaved(graph, "t", "quick");
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);
    // The node saw its signal abort (the run does not wait for a node that ignores it).
    await vi.waitFor(() => expect(log.count("slow:aborted")).toBe(1));
    expect(log.take().sort()).toEqual(["quick", "slow", "slow:aborted"]);

    // Continue: only the cancelled task runs again; the finished one is replayed from its saved writes.
    expect(await graph.invoke(null, { threadId: "t" })).toEqual({ out: ["quick", "slow", "after"] });
    expect(log.take()).toEqual(["slow", "after"]);
  });

  it("a task that finished is not re-run after a sibling's error in the same step", async () => {
    const log = new RunLog();
    let failOnce = true;
    const graph = twoBranches(log, saver(), async () => {
      if (!failOnce) return;
      failOnce = false;
      await untilSaved(graph, "t", "quick");
      throw new Error("slow failed");
    });
    await expect(graph.invoke({}, { threadId: "t" })).rejects.toThrow("slow failed");
    expect(log.take().sort()).toEqual(["quick", "slow"]);
    const state = await graph.getState("t");
    expect(state.tasks.map((t) => [t.name, t.error !== null, t.result])).toEqual([
      ["quick", false, { out: ["quick"] }],
      ["slow", true, null],
    ]);
    expect(state.tasks[1]?.error).toContain("slow failed");

    expect(await graph.invoke(null, { threadId: "t" })).toEqual({ out: ["quick", "slow", "after"] });
    expect(log.take()).toEqual(["slow", "after"]);
  });

  it("a failing task aborts the signal of a sibling still running", async () => {
    const log = new RunLog();
    const started = deferred();
    let siblingReason: unknown;
    const graph = new StateGraph({ out: list() })
      .addNode("boom", async () => {
        await started.promise;
        throw new Error("boom");
      })
      .addNode("waiter", async (_s, runtime) => {
        started.resolve();
        siblingReason = await aborted(runtime.signal);
        log.hit("waiter:aborted");
        return { out: ["waiter"] };
      })
      .addEdge(START, "boom")
      .addEdge(START, "waiter")
      .compile({ checkpointer: saver() });
    await expect(graph.invoke({}, { threadId: "t" })).rejects.toThrow("boom");
    await vi.waitFor(() => expect(log.count("waiter:aborted")).toBe(1));
    expect(siblingReason).toMatchObject({ message: "boom" });
    expect((await graph.getState("t")).values).toEqual({ out: [] });
  });
});

describe("cancellation without a checkpointer", () => {
  it("rejects with RunCancelledError when the signal is already aborted; no node runs", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ n: lastValue<number>() })
      .addNode("a", () => {
        log.hit("a");
        return { n: 1 };
      })
      .addEdge(START, "a")
      .compile();
    await expect(graph.invoke({ n: 0 }, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RunCancelledError);
    expect(log.count("a")).toBe(0);
  });
});
