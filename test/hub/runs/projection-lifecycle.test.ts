import { describe, expect, it } from "vitest";
import type { StreamPart } from "../../../engine/stream/types.ts";
import { createProjector } from "../../../hub/runs/projection.ts";
import { checkMessageLifecycle, chunk, lifecycleTrail, ofMethod, project, RUN, taskResult, taskStart, THREAD } from "../../support/protocol.ts";

const interrupt = (ns: string[], id: string, value: unknown): StreamPart => ({ type: "updates", ns, data: { __interrupt__: [{ id, value }] } });

describe("lifecycle projection", () => {
  it("root: started, running on the first executed part, completed at the end", () => {
    const events = project(
      [
        { type: "values", ns: [], data: { n: 0 } },
        taskStart([], "a", "t1"),
        { type: "updates", ns: [], data: { a: { n: 1 } } },
        taskResult([], "a", "t1", { result: { n: 1 } }),
        { type: "values", ns: [], data: { n: 1 } },
      ],
      { status: "completed" },
    );
    expect(lifecycleTrail(events)).toEqual(["/ started", "/ running", "/ completed"]);
    expect(events[0]).toMatchObject({ type: "event", method: "lifecycle", thread_id: THREAD, run_id: RUN, run_seq: 1 });
    expect(events.at(-1)).toMatchObject({ method: "lifecycle", params: { namespace: [], data: { event: "completed" } } });
  });

  it("start() emits the root's started once, before any part", () => {
    const projector = createProjector({ threadId: THREAD, runId: RUN, graphName: "agent" });
    const first = projector.start();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ method: "lifecycle", params: { data: { event: "started", graph_name: "agent" } } });
    expect(projector.start()).toEqual([]);
    expect(lifecycleTrail(projector.finish({ status: "completed" }))).toEqual(["/ completed"]);
    expect(() => projector.push({ type: "values", ns: [], data: {} })).toThrow(/already finished/);
    expect(() => projector.finish({ status: "completed" })).toThrow(/already finished/);
  });

  it("a subgraph gets its own started/running when its first part appears and ends with its task result", () => {
    const sub = ["research:t1"];
    const events = project(
      [
        taskStart([], "research", "t1"),
        taskStart(sub, "search", "s1"),
        { type: "updates", ns: sub, data: { search: { hits: 3 } } },
        taskResult(sub, "search", "s1"),
        taskResult([], "research", "t1"),
        taskStart([], "write", "t2"),
        taskResult([], "write", "t2"),
      ],
      { status: "completed" },
    );
    expect(lifecycleTrail(events)).toEqual([
      "/ started",
      "/ running",
      "research:t1 started",
      "research:t1 running",
      "research:t1 completed",
      "/ completed",
    ]);
    const subStart = ofMethod(events, "lifecycle").find((e) => e.params.namespace[0] === "research:t1");
    expect(subStart?.params).toMatchObject({ node: "research", data: { event: "started", graph_name: "research" } });
  });

  it("nested subgraphs start parent first and end deepest first when the run ends", () => {
    const events = project([{ type: "custom", ns: ["outer:t1", "inner:t2"], data: { pct: 5 } }], { status: "completed" });
    expect(lifecycleTrail(events)).toEqual([
      "/ started",
      "outer:t1 started",
      "outer:t1/inner:t2 started",
      "/ running",
      "outer:t1 running",
      "outer:t1/inner:t2 running",
      "outer:t1/inner:t2 completed",
      "outer:t1 completed",
      "/ completed",
    ]);
  });

  it("interrupted run: input.requested per interrupt, lifecycle interrupted, never completed", () => {
    const sub = ["review:t1"];
    const events = project(
      [
        taskStart([], "review", "t1"),
        taskStart(sub, "ask", "a1"),
        interrupt(sub, "int-1", { question: "ok?" }),
        // The same interrupt bubbles up to the parent: not asked twice.
        interrupt([], "int-1", { question: "ok?" }),
        taskStart([], "other", "t2"),
        interrupt([], "int-2", { question: "and this?" }),
      ],
      // Even if a caller says "completed", a run that raised interrupts is interrupted.
      { status: "completed" },
    );
    const asked = ofMethod(events, "input.requested");
    expect(asked.map((e) => [e.params.namespace, e.params.node, e.params.data])).toEqual([
      [sub, "ask", { interrupt_id: "int-1", payload: { question: "ok?" } }],
      // Two tasks run at the root, so the node of int-2 is unknown: left out, not guessed.
      [[], undefined, { interrupt_id: "int-2", payload: { question: "and this?" } }],
    ]);
    const trail = lifecycleTrail(events);
    expect(trail).toContain("review:t1 interrupted");
    expect(trail.at(-1)).toBe("/ interrupted");
    expect(trail.some((t) => t.endsWith("completed"))).toBe(false);
  });

  it("an interrupted subgraph task result ends the subgraph as interrupted", () => {
    const sub = ["review:t1"];
    const events = project(
      [
        taskStart(sub, "ask", "a1"),
        taskResult(sub, "ask", "a1", { interrupts: [{ id: "int-9", value: "?" }] }),
        taskResult([], "review", "t1", { interrupts: [{ id: "int-9", value: "?" }] }),
      ],
      { status: "interrupted" },
    );
    expect(ofMethod(events, "input.requested").map((e) => [e.params.node, e.params.data.interrupt_id])).toEqual([["ask", "int-9"]]);
    expect(lifecycleTrail(events).slice(-2)).toEqual(["review:t1 interrupted", "/ interrupted"]);
  });

  it("failed run: root and open subgraphs fail with the error; open messages and tools end", () => {
    const events = project(
      [
        chunk(["sub:t1"], "model", { id: "m1", content: "par" }),
        { type: "tools", ns: [], data: { event: "tool-started", toolCallId: "c1", name: "search", input: { q: 1 } } },
      ],
      { status: "failed", error: "model exploded" },
    );
    checkMessageLifecycle(events);
    expect(lifecycleTrail(events).slice(-2)).toEqual(["sub:t1 failed", "/ failed"]);
    expect(events.at(-1)?.params.data).toEqual({ event: "failed", error: "model exploded" });
    const toolEnd = ofMethod(events, "tools").at(-1)?.params.data;
    expect(toolEnd).toMatchObject({ event: "tool-error", tool_call_id: "c1", message: "model exploded", code: "run_failed" });
  });

  it("a failed subgraph task fails that subgraph only", () => {
    const events = project([taskStart(["sub:t1"], "x", "x1"), taskResult([], "sub", "t1", { error: "bad" })], { status: "completed" });
    expect(lifecycleTrail(events).slice(-2)).toEqual(["sub:t1 failed", "/ completed"]);
  });

  it("cancelled run is sent as failed with cancelled: true (0.0.21 has no cancelled status)", () => {
    const events = project([taskStart([], "a", "t1")], { status: "cancelled" });
    expect(events.at(-1)?.params.data).toEqual({ event: "failed", error: "run cancelled", cancelled: true });
  });

  it("a run with no parts still starts and ends", () => {
    expect(lifecycleTrail(project([], { status: "interrupted" }))).toEqual(["/ started", "/ interrupted"]);
  });

  it("timestamps come from the injected clock", () => {
    const events = project([{ type: "values", ns: [], data: {} }]);
    expect(events.map((e) => e.params.timestamp)).toEqual([1000, 1001]);
  });
});
