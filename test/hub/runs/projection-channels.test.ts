import { describe, expect, it } from "vitest";
import type { CheckpointPayload } from "../../../engine/stream/types.ts";
import { channelOf } from "../../../hub/protocol/index.ts";
import { customDataOf } from "../../../hub/runs/projection.ts";
import { ofMethod, project, taskResult, taskStart } from "../../support/protocol.ts";

describe("projection of the other channels", () => {
  it("tools: started, output delta, finished, error — snake_case, node from the sole running task", () => {
    const events = project([
      taskStart([], "tools", "t1"),
      { type: "tools", ns: [], data: { event: "tool-started", toolCallId: "c1", name: "search", input: { q: "x" } } },
      { type: "tools", ns: [], data: { event: "tool-output-delta", toolCallId: "c1", name: "search", delta: "par" } },
      { type: "tools", ns: [], data: { event: "tool-output-delta", toolCallId: "c1", name: "search", delta: { rows: 1 } } },
      { type: "tools", ns: [], data: { event: "tool-finished", toolCallId: "c1", name: "search", output: { hits: 1 } } },
      { type: "tools", ns: [], data: { event: "tool-started", toolCallId: "c2", name: "fail", input: {} } },
      { type: "tools", ns: [], data: { event: "tool-error", toolCallId: "c2", name: "fail", message: "nope" } },
    ], { status: "completed" });
    const tools = ofMethod(events, "tools");
    expect(tools.map((e) => e.params.data)).toEqual([
      { event: "tool-started", tool_call_id: "c1", tool_name: "search", input: { q: "x" } },
      { event: "tool-output-delta", tool_call_id: "c1", delta: "par" },
      { event: "tool-output-delta", tool_call_id: "c1", delta: '{"rows":1}' },
      { event: "tool-finished", tool_call_id: "c1", output: { hits: 1 } },
      { event: "tool-started", tool_call_id: "c2", tool_name: "fail", input: {} },
      { event: "tool-error", tool_call_id: "c2", message: "nope" },
    ]);
    expect(tools.every((e) => e.params.node === "tools")).toBe(true);
  });

  it("custom: plain payloads on `custom`; { name, ... } on `custom:<name>` (method stays custom)", () => {
    const events = project([
      { type: "custom", ns: [], data: "just a string" },
      { type: "custom", ns: [], data: { name: "progress", pct: 40, stage: "fetch" } },
      { type: "custom", ns: ["sub:t1"], data: { name: "citations", payload: [{ url: "u" }] } },
      { type: "custom", ns: [], data: { name: "not a valid name!", x: 1 } },
      { type: "custom", ns: [], data: { name: 7 } },
    ]);
    const custom = ofMethod(events, "custom");
    expect(custom.map((e) => [channelOf(e), e.params.data])).toEqual([
      ["custom", { payload: "just a string" }],
      ["custom:progress", { name: "progress", payload: { pct: 40, stage: "fetch" } }],
      ["custom:citations", { name: "citations", payload: [{ url: "u" }] }],
      ["custom", { payload: { name: "not a valid name!", x: 1 } }],
      ["custom", { payload: { name: 7 } }],
    ]);
  });

  it("customDataOf keeps falsy payloads", () => {
    for (const value of [0, "", false, null]) expect(customDataOf(value)).toEqual({ payload: value });
    expect(customDataOf({ name: "n", payload: 0 })).toEqual({ name: "n", payload: 0 });
  });

  it("values, updates (one event per node; null = empty delta), checkpoints, tasks", () => {
    const cp: CheckpointPayload = {
      config: { threadId: "t", checkpointNs: "", checkpointId: "cp2" },
      parentConfig: { threadId: "t", checkpointNs: "", checkpointId: "cp1" },
      values: { secret: "never on the wire" },
      metadata: { step: 3, source: "loop" },
      next: [],
      tasks: [],
    };
    const events = project([
      { type: "values", ns: [], data: { n: 0, flag: false } },
      taskStart([], "a", "t1"),
      { type: "updates", ns: [], data: { a: { n: 1 }, b: null } },
      taskResult([], "a", "t1", { result: { n: 1 } }),
      { type: "checkpoints", ns: [], data: cp },
      {
        type: "checkpoints",
        ns: [],
        data: { ...cp, config: { threadId: "t", checkpointNs: "", checkpointId: "cp0" }, parentConfig: null, metadata: {} },
      },
      { type: "debug", ns: [], data: { type: "task", step: 1, timestamp: "", payload: { id: "x", name: "a", input: {}, triggers: [] } } },
    ]);
    expect(ofMethod(events, "values").map((e) => e.params.data)).toEqual([{ n: 0, flag: false }]);
    expect(ofMethod(events, "updates").map((e) => [e.params.node, e.params.data])).toEqual([
      ["a", { node: "a", values: { n: 1 } }],
      ["b", { node: "b", values: {} }],
    ]);
    expect(ofMethod(events, "checkpoints").map((e) => e.params.data)).toEqual([
      { id: "cp2", parent_id: "cp1", step: 3, source: "loop" },
      { id: "cp0", step: -1, source: "loop" },
    ]);
    expect(ofMethod(events, "tasks").map((e) => [e.params.node, e.params.data])).toEqual([
      ["a", { id: "t1", name: "a", input: {}, triggers: [] }],
      ["a", { id: "t1", name: "a", error: null, result: { n: 1 }, interrupts: [] }],
    ]);
    // debug is not projected; checkpoint values never reach the wire
    expect(JSON.stringify(events)).not.toContain('"timestamp":""');
    expect(JSON.stringify(events)).not.toContain("never on the wire");
  });

  it("an update the engine replays as cached (a task that finished before the pause) is not sent as new work", () => {
    const events = project([
      { type: "updates", ns: [], data: { c: { n: 1 }, __metadata__: { cached: true } } },
      { type: "updates", ns: ["sub:t1"], data: { inner: { n: 2 }, __metadata__: { cached: true } } },
      { type: "updates", ns: [], data: { a: { n: 3 } } },
    ]);
    expect(ofMethod(events, "updates").map((e) => [e.params.node, e.params.data])).toEqual([["a", { node: "a", values: { n: 3 } }]]);
  });

  it("namespaces are copied, not shared with the engine's parts", () => {
    const ns = ["sub:t1"];
    const events = project([{ type: "values", ns, data: {} }]);
    const values = ofMethod(events, "values")[0];
    expect(values?.params.namespace).toEqual(ns);
    expect(values?.params.namespace).not.toBe(ns);
  });
});
