/**
 * The messages projection: the content-block lifecycle of docs/PROTOCOL.md
 * assembled into messages (text, reasoning, tool calls with parsed args),
 * per namespace and node.
 */
import { describe, expect, it } from "vitest";
import { conversationOf, messagesFromValues, reduceMessages, reduceTools, type MessageView, type ToolRunView } from "../../client/index.ts";
import { decodeEvent, type ProtocolEvent } from "../../hub/protocol/index.ts";
import { ev, textMessage, type EventOptions } from "../support/protocol-docs.ts";

function fold(events: ProtocolEvent[]): readonly MessageView[] {
  let messages: readonly MessageView[] = [];
  for (const e of events) if (e.method === "messages") messages = reduceMessages(messages, e);
  return messages;
}

const msg = (id: string, data: Record<string, unknown>, o: EventOptions = {}) => ev("messages", { ...data, run_id: id }, { node: "agent", ...o });

describe("messages projection", () => {
  it("assembles the documented text + tool call message, with args parsed as they stream", () => {
    const events = [
      msg("msg_1", { event: "message-start", role: "ai", id: "msg_1", metadata: { model: "gpt-x" } }),
      msg("msg_1", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
      msg("msg_1", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "Let me check" } }),
      msg("msg_1", { event: "content-block-finish", index: 0, content: { type: "text", text: "Let me check" } }),
      msg("msg_1", { event: "content-block-start", index: 1, content: { type: "tool_call_chunk", id: "call_1", name: "search", args: "" } }),
      msg("msg_1", { event: "content-block-delta", index: 1, delta: { type: "tool-call-delta", args: '{"q":' } }),
    ];
    const streaming = fold(events);
    expect(streaming[0]?.toolCalls).toEqual([{ id: "call_1", name: "search", args: undefined, argsText: '{"q":', done: false }]);
    const done = fold([
      ...events,
      msg("msg_1", { event: "content-block-delta", index: 1, delta: { type: "tool-call-delta", args: '"weather"}' } }),
      msg("msg_1", { event: "content-block-finish", index: 1, content: { type: "tool_call", id: "call_1", name: "search", args: { q: "weather" } } }),
      msg("msg_1", { event: "message-finish", reason: "tool_calls", usage: { input_tokens: 120, output_tokens: 18, total_tokens: 138 } }),
    ]);
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      id: "msg_1",
      status: "finished",
      text: "Let me check",
      finishReason: "tool_calls",
      metadata: { model: "gpt-x" },
      toolCalls: [{ id: "call_1", name: "search", args: { q: "weather" }, done: true }],
    });
    expect(done[0]?.blocks.map((b) => [b.kind, b.done])).toEqual([["text", true], ["tool_call", true]]);
  });

  it("ignores a delta type it does not know and keeps assembling the message (frames decoded as the client does)", () => {
    const frames = [
      msg("m", { event: "message-start", role: "ai", id: "m" }),
      msg("m", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
      msg("m", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "Hel" } }),
      msg("m", { event: "content-block-delta", index: 0, delta: { type: "sparkle-delta", sparkle: 3 } }),
      // An unknown delta for a block never started must not create one either.
      msg("m", { event: "content-block-delta", index: 5, delta: { type: "sparkle-delta", sparkle: 4 } }),
      msg("m", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "lo" } }),
    ].map((e) => JSON.stringify(e));
    const events: ProtocolEvent[] = frames.map((f) => {
      const decoded = decodeEvent(f);
      if (!decoded.ok) throw new Error(decoded.error.message);
      return decoded.event;
    });
    const before = fold(events.slice(0, 3));
    expect(fold(events.slice(0, 5))).toEqual(before);
    const messages = fold(events);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toBe("Hello");
    expect(messages[0]?.blocks.map((b) => b.index)).toEqual([0]);
  });

  it("parses args before the finish once the streamed text is complete JSON", () => {
    const messages = fold([
      msg("m", { event: "message-start", role: "ai", id: "m" }),
      msg("m", { event: "content-block-start", index: 0, content: { type: "tool_call_chunk", id: null, name: null, args: "" } }),
      msg("m", { event: "content-block-delta", index: 0, delta: { type: "block-delta", fields: { type: "tool_call_chunk", id: "c9", name: "lookup" } } }),
      msg("m", { event: "content-block-delta", index: 0, delta: { type: "tool-call-delta", args: '{"id": 7}' } }),
    ]);
    expect(messages[0]?.toolCalls).toEqual([{ id: "c9", name: "lookup", args: { id: 7 }, argsText: '{"id": 7}', done: false }]);
  });

  it("keeps reasoning apart from text and reports invalid tool calls", () => {
    const [message] = fold([
      msg("m", { event: "message-start", role: "ai", id: "m" }),
      msg("m", { event: "content-block-start", index: 0, content: { type: "reasoning", reasoning: "" } }),
      msg("m", { event: "content-block-delta", index: 0, delta: { type: "reasoning-delta", reasoning: "think" } }),
      msg("m", { event: "content-block-finish", index: 0, content: { type: "reasoning", reasoning: "think" } }),
      msg("m", { event: "content-block-start", index: 1, content: { type: "text", text: "" } }),
      msg("m", { event: "content-block-delta", index: 1, delta: { type: "text-delta", text: "answer" } }),
      msg("m", { event: "content-block-finish", index: 1, content: { type: "text", text: "answer" } }),
      msg("m", { event: "content-block-start", index: 2, content: { type: "tool_call_chunk", id: "c", name: "f", args: "" } }),
      msg("m", { event: "content-block-delta", index: 2, delta: { type: "tool-call-delta", args: "{oops" } }),
      msg("m", { event: "content-block-finish", index: 2, content: { type: "invalid_tool_call", id: "c", name: "f", args: "{oops", error: "bad JSON" } }),
      msg("m", { event: "message-finish", reason: "tool_calls" }),
    ]);
    expect(message).toMatchObject({ reasoning: "think", text: "answer", toolCalls: [{ id: "c", name: "f", args: undefined, argsText: "{oops", error: "bad JSON", done: true }] });
  });

  it("keeps concurrent messages of parallel namespaces apart, in order of start", () => {
    const a = textMessage("ma", ["alpha ", "one"], { namespace: ["r1:t1"], node: "model" });
    const b = textMessage("mb", ["beta ", "two"], { namespace: ["r2:t2"], node: "model" });
    const interleaved = a.flatMap((e, i) => [e, b[i]]).filter((e): e is ProtocolEvent => e !== undefined);
    const messages = fold(interleaved);
    expect(messages.map((m) => [m.namespace, m.text, m.status])).toEqual([
      [["r1:t1"], "alpha one", "finished"],
      [["r2:t2"], "beta two", "finished"],
    ]);
  });

  it("marks a message cut short by a failed run as an error", () => {
    const [message] = fold([
      ...textMessage("m2", ["partial"], { namespace: ["research:t1"], node: "model" }).slice(0, 3),
      ev("messages", { event: "error", message: "model timed out", code: "run_failed", run_id: "m2" }, { namespace: ["research:t1"], node: "model" }),
    ]);
    expect(message).toMatchObject({ status: "error", text: "partial", error: { message: "model timed out", code: "run_failed" } });
  });

  it("starts a message implicitly when its start was missed (joined mid-message)", () => {
    const [message] = fold(textMessage("m3", ["a", "b", "c"]).slice(3));
    expect(message).toMatchObject({ id: "m3", status: "finished", text: "abc" });
  });

  it("without run_id (spec producers), deltas go to the open message of the namespace and node", () => {
    const plain = (data: Record<string, unknown>) => ev("messages", data, { node: "agent" });
    const [message] = fold([
      plain({ event: "message-start", role: "ai", id: "x1" }),
      plain({ event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
      plain({ event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "hi" } }),
      plain({ event: "message-finish" }),
    ]);
    expect(message).toMatchObject({ id: "x1", text: "hi", status: "finished" });
  });
});

describe("tools projection", () => {
  it("follows a tool execution by tool_call_id, from start to result or error", () => {
    let tools: readonly ToolRunView[] = [];
    for (const e of [
      ev("tools", { event: "tool-started", tool_call_id: "call_1", tool_name: "search", input: { q: "weather" } }, { node: "tools" }),
      ev("tools", { event: "tool-output-delta", tool_call_id: "call_1", delta: "sun" }, { node: "tools" }),
      ev("tools", { event: "tool-finished", tool_call_id: "call_1", output: { forecast: "sun" } }, { node: "tools" }),
      ev("tools", { event: "tool-error", tool_call_id: "call_2", message: "rate limited by upstream" }, { node: "tools" }),
    ]) {
      if (e.method === "tools") tools = reduceTools(tools, e);
    }
    expect(tools).toEqual([
      { tool_call_id: "call_1", tool_name: "search", namespace: [], node: "tools", input: { q: "weather" }, status: "finished", partial: "sun", output: { forecast: "sun" } },
      { tool_call_id: "call_2", tool_name: undefined, namespace: [], node: "tools", input: undefined, status: "error", partial: "", error: { message: "rate limited by upstream" } },
    ]);
  });
});

describe("the state's messages (values.messages) in the conversation", () => {
  const values = {
    messages: [
      { type: "human", id: "h1", content: "Refund order A-1027, please." },
      { type: "ai", id: "msg_1", content: "I will refund it.", tool_calls: [{ id: "call_1", name: "issue_refund", args: { order: "A-1027" } }], usage: { input_tokens: 9, output_tokens: 5, total_tokens: 14 } },
      { type: "tool", id: "t1", name: "issue_refund", tool_call_id: "call_1", content: "Refunded 120 EUR" },
      { role: "assistant", content: [{ type: "reasoning", reasoning: "done" }, { type: "text", text: "Done." }] },
      { not: "a message" },
      "nor this",
    ],
  };

  it("reads the engine's and LangChain's message shapes as finished views, in state order, skipping what is no message", () => {
    const views = messagesFromValues(values);
    expect(views.map((m) => [m.id, m.role, m.name, m.text, m.status])).toEqual([
      ["h1", "human", undefined, "Refund order A-1027, please.", "finished"],
      ["msg_1", "ai", undefined, "I will refund it.", "finished"],
      ["t1", "tool", "issue_refund", "Refunded 120 EUR", "finished"],
      ["state-3", "ai", undefined, "Done.", "finished"],
    ]);
    expect(views[1]?.toolCalls).toEqual([{ id: "call_1", name: "issue_refund", args: { order: "A-1027" }, argsText: '{"order":"A-1027"}', done: true }]);
    expect(views[1]?.usage).toEqual({ input_tokens: 9, output_tokens: 5, total_tokens: 14 });
    expect(views[3]?.reasoning).toBe("done");
    expect(messagesFromValues(null)).toEqual([]);
    expect(messagesFromValues({ messages: "no list" })).toEqual([]);
  });

  it("keeps a streamed message in its streamed form at its state position, and the streamed ones the state lacks after", () => {
    const streamed = fold([
      msg("msg_1", { event: "message-start", role: "ai", id: "msg_1" }, { node: "agent" }),
      msg("msg_1", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
      msg("msg_1", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "I will refund it." } }),
      msg("msg_1", { event: "message-finish" }),
      msg("msg_2", { event: "message-start", role: "ai", id: "msg_2" }, { node: "agent" }),
      msg("msg_2", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
      msg("msg_2", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "Still typ" } }),
    ]);
    const shown = conversationOf(streamed, messagesFromValues(values));
    expect(shown.map((m) => [m.id, m.node ?? m.role, m.status])).toEqual([
      ["h1", "human", "finished"],
      ["msg_1", "agent", "finished"],
      ["t1", "tool", "finished"],
      ["state-3", "ai", "finished"],
      ["msg_2", "agent", "streaming"],
    ]);
    expect(shown[1]).toBe(streamed[0]);
    // No messages in the state: the streamed list itself.
    expect(conversationOf(streamed, messagesFromValues({ draft: "x" }))).toBe(streamed);
  });
});
