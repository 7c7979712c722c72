import { describe, expect, it } from "vitest";
import { checkMessageLifecycle, chunk, messageTrail, ofMethod, project, taskResult, taskStart } from "../../support/protocol.ts";

describe("messages projection: content-block lifecycle", () => {
  it("text-only message: start, one text block, finish with usage and reason", () => {
    const events = project(
      [
        chunk([], "agent", { id: "m1", content: "Hel" }),
        chunk([], "agent", { id: "m1", content: "lo" }),
        chunk([], "agent", {
          id: "m1",
          content: "!",
          usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
          finish_reason: "stop",
          last: true,
        }),
      ],
      { status: "completed" },
    );
    checkMessageLifecycle(events);
    expect(messageTrail(events)).toEqual([
      "start",
      "block-start 0 text",
      "delta 0 text-delta",
      "delta 0 text-delta",
      "delta 0 text-delta",
      "block-finish 0 text",
      "finish",
    ]);
    const msgs = ofMethod(events, "messages");
    expect(msgs.every((e) => e.params.node === "agent" && e.params.namespace.length === 0)).toBe(true);
    expect(msgs[0]?.params.data).toMatchObject({ event: "message-start", role: "ai", id: "m1", metadata: { run_id: "run-1", thread_id: "thread-1" } });
    expect(msgs[5]?.params.data).toMatchObject({ content: { type: "text", text: "Hello!" } });
    expect(msgs[6]?.params.data).toMatchObject({
      event: "message-finish",
      reason: "stop",
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
  });

  it("text then a tool call with args split across chunks: blocks never interleave, finish carries parsed args", () => {
    const events = project(
      [
        chunk([], "agent", { id: "m1", content: "Let me look." }),
        chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 0, id: "call_1", name: "search", args: '{"q":' }] }),
        chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 0, args: '"weather"' }] }),
        chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 0, args: "}" }] }),
        chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 1, id: "call_2", name: "now", args: "" }] }),
        chunk([], "agent", { id: "m1", finish_reason: "tool_calls", last: true }),
      ],
      { status: "completed" },
    );
    checkMessageLifecycle(events);
    expect(messageTrail(events)).toEqual([
      "start",
      "block-start 0 text",
      "delta 0 text-delta",
      "block-finish 0 text",
      "block-start 1 tool_call_chunk",
      "delta 1 tool-call-delta",
      "delta 1 tool-call-delta",
      "delta 1 tool-call-delta",
      "block-finish 1 tool_call",
      "block-start 2 tool_call_chunk",
      "block-finish 2 tool_call",
      "finish",
    ]);
    const finishes = ofMethod(events, "messages").flatMap((e) => (e.params.data.event === "content-block-finish" ? [e.params.data.content] : []));
    expect(finishes[1]).toEqual({ type: "tool_call", id: "call_1", name: "search", args: { q: "weather" } });
    expect(finishes[2]).toEqual({ type: "tool_call", id: "call_2", name: "now", args: {} });
    const starts = ofMethod(events, "messages").flatMap((e) => (e.params.data.event === "content-block-start" ? [e.params.data.content] : []));
    expect(starts[1]).toEqual({ type: "tool_call_chunk", id: "call_1", name: "search", args: "" });
  });

  it("invalid tool args finish as invalid_tool_call with the raw text", () => {
    const events = project(
      [chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 0, id: "c", name: "f", args: '{"a":' }], last: true })],
      { status: "completed" },
    );
    const finish = ofMethod(events, "messages").find((e) => e.params.data.event === "content-block-finish");
    expect(finish?.params.data).toMatchObject({ content: { type: "invalid_tool_call", id: "c", name: "f", args: '{"a":' } });
  });

  it("a tool call id arriving after the first fragment is sent as a block-delta", () => {
    const events = project(
      [
        chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 0, name: "f", args: "{}" }] }),
        chunk([], "agent", { id: "m1", tool_call_chunks: [{ index: 0, id: "late" }], last: true }),
      ],
      { status: "completed" },
    );
    checkMessageLifecycle(events);
    const deltas = ofMethod(events, "messages").flatMap((e) => (e.params.data.event === "content-block-delta" ? [e.params.data.delta] : []));
    expect(deltas).toContainEqual({ type: "block-delta", fields: { type: "tool_call_chunk", id: "late" } });
  });

  it("reasoning then text: the reasoning block finishes before the text block starts", () => {
    const events = project(
      [
        chunk([], "agent", { id: "m1", reasoning: "Think" }),
        chunk([], "agent", { id: "m1", reasoning: "ing." }),
        // One chunk carrying the end of reasoning and the start of the answer.
        chunk([], "agent", { id: "m1", reasoning: "..", content: "Answer" }),
        chunk([], "agent", { id: "m1", content: ".", last: true }),
      ],
      { status: "completed" },
    );
    checkMessageLifecycle(events);
    expect(messageTrail(events)).toEqual([
      "start",
      "block-start 0 reasoning",
      "delta 0 reasoning-delta",
      "delta 0 reasoning-delta",
      "delta 0 reasoning-delta",
      "block-finish 0 reasoning",
      "block-start 1 text",
      "delta 1 text-delta",
      "delta 1 text-delta",
      "block-finish 1 text",
      "finish",
    ]);
    const finishes = ofMethod(events, "messages").flatMap((e) => (e.params.data.event === "content-block-finish" ? [e.params.data.content] : []));
    expect(finishes).toEqual([
      { type: "reasoning", reasoning: "Thinking..." },
      { type: "text", text: "Answer." },
    ]);
  });

  it("two parallel subgraph nodes interleaved in time keep their own lifecycles", () => {
    const a = ["research:t1"];
    const b = ["write:t2"];
    const events = project(
      [
        chunk(a, "model", { id: "ma", content: "A1" }, "ta"),
        chunk(b, "model", { id: "mb", content: "B1" }, "tb"),
        chunk(a, "model", { id: "ma", content: "A2" }, "ta"),
        chunk(b, "model", { id: "mb", tool_call_chunks: [{ index: 0, id: "cb", name: "t", args: "{}" }] }, "tb"),
        chunk(a, "model", { id: "ma", content: "A3", last: true }, "ta"),
        chunk(b, "model", { id: "mb", last: true }, "tb"),
      ],
      { status: "completed" },
    );
    checkMessageLifecycle(events);
    const inNs = (ns: string) => (e: { params: { namespace: string[] } }) => e.params.namespace.join("/") === ns;
    expect(messageTrail(events, inNs("research:t1"))).toEqual([
      "start",
      "block-start 0 text",
      "delta 0 text-delta",
      "delta 0 text-delta",
      "delta 0 text-delta",
      "block-finish 0 text",
      "finish",
    ]);
    expect(messageTrail(events, inNs("write:t2"))).toEqual([
      "start",
      "block-start 0 text",
      "delta 0 text-delta",
      "block-finish 0 text",
      "block-start 1 tool_call_chunk",
      "delta 1 tool-call-delta",
      "block-finish 1 tool_call",
      "finish",
    ]);
    // Interleaved on the wire: b's start comes before a's second delta.
    const order = ofMethod(events, "messages").map((e) => `${e.params.namespace[0]}:${e.params.data.event}`);
    expect(order.indexOf("write:t2:message-start")).toBeLessThan(order.lastIndexOf("research:t1:content-block-delta"));
  });

  it("a new message id in the same task finishes the previous message first", () => {
    const events = project(
      [chunk([], "agent", { id: "m1", content: "one" }), chunk([], "agent", { id: "m2", content: "two", last: true })],
      { status: "completed" },
    );
    checkMessageLifecycle(events);
    expect(messageTrail(events)).toEqual([
      "start",
      "block-start 0 text",
      "delta 0 text-delta",
      "block-finish 0 text",
      "finish",
      "start",
      "block-start 0 text",
      "delta 0 text-delta",
      "block-finish 0 text",
      "finish",
    ]);
  });

  it("a message without a last chunk ends when its task's result arrives", () => {
    const events = project(
      [taskStart([], "agent", "t1"), chunk([], "agent", { content: "hi" }, "t1"), taskResult([], "agent", "t1")],
    );
    checkMessageLifecycle(events);
    const start = ofMethod(events, "messages")[0]?.params.data;
    expect(start).toMatchObject({ event: "message-start", id: "run-1:msg:1" });
    const finishAt = events.findIndex((e) => e.method === "messages" && e.params.data.event === "message-finish");
    const taskAt = events.findIndex((e) => e.method === "tasks" && "interrupts" in e.params.data);
    expect(finishAt).toBeGreaterThan(-1);
    expect(finishAt).toBeLessThan(taskAt);
  });

  it("a failed run ends open messages with an error event, not message-finish", () => {
    const events = project([chunk([], "agent", { id: "m1", content: "par" })], { status: "failed", error: "boom" });
    checkMessageLifecycle(events);
    expect(messageTrail(events)).toEqual(["start", "block-start 0 text", "delta 0 text-delta", "error run_failed"]);
  });

  it("a usage-only straggler after the last chunk is not a new message", () => {
    const events = project(
      [
        chunk([], "agent", { id: "m1", content: "x", last: true }),
        chunk([], "agent", { id: "m1", usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }),
      ],
      { status: "completed" },
    );
    expect(messageTrail(events).filter((t) => t === "start")).toHaveLength(1);
  });
});
