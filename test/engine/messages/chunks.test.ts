/** concatChunks and chunkToMessage: text, reasoning, tool-call fragments by index, usage, finish reason. */
import { describe, expect, it } from "vitest";
import { aiMessageChunk, chunkToMessage, concatChunks } from "../../../engine/messages/index.ts";
import type { AIMessageChunk } from "../../../engine/messages/index.ts";

const usage = (i: number, o: number) => ({ input_tokens: i, output_tokens: o, total_tokens: i + o });

describe("concatChunks", () => {
  it.each<[string, AIMessageChunk, AIMessageChunk, AIMessageChunk]>([
    ["text", aiMessageChunk("he"), aiMessageChunk("llo"), aiMessageChunk("hello")],
    ["empty text", aiMessageChunk(""), aiMessageChunk(""), aiMessageChunk("")],
    ["first id wins", aiMessageChunk("", { id: "a" }), aiMessageChunk("", { id: "b" }), aiMessageChunk("", { id: "a" })],
    ["an empty id is no id", aiMessageChunk("", { id: "" }), aiMessageChunk("", { id: "b" }), aiMessageChunk("", { id: "b" })],
    ["reasoning joins", aiMessageChunk("", { reasoning: "th" }), aiMessageChunk("", { reasoning: "ink" }), aiMessageChunk("", { reasoning: "think" })],
    ["reasoning on one side", aiMessageChunk("x"), aiMessageChunk("", { reasoning: "" }), aiMessageChunk("x", { reasoning: "" })],
    ["usage sums", aiMessageChunk("", { usage: usage(1, 2) }), aiMessageChunk("", { usage: usage(0, 3) }), aiMessageChunk("", { usage: usage(1, 5) })],
    ["usage on one side", aiMessageChunk(""), aiMessageChunk("", { usage: usage(0, 0) }), aiMessageChunk("", { usage: usage(0, 0) })],
    ["latest finish reason", aiMessageChunk("", { finish_reason: "length" }), aiMessageChunk("", { finish_reason: "stop" }), aiMessageChunk("", { finish_reason: "stop" })],
    ["finish reason kept", aiMessageChunk("", { finish_reason: "stop" }), aiMessageChunk(""), aiMessageChunk("", { finish_reason: "stop" })],
    ["last position kept", aiMessageChunk("a"), aiMessageChunk("b", { chunk_position: "last" }), aiMessageChunk("ab", { chunk_position: "last" })],
  ])("%s", (_label, a, b, expected) => {
    expect(concatChunks(a, b)).toStrictEqual(expected);
  });

  it("joins tool-call fragments by index, keeping the first id and name", () => {
    const merged = [
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "c0", name: "search", args: "" }] }),
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, args: '{"q":' }, { index: 1, id: "c1", name: "calc", args: "{" }] }),
      // Providers that repeat id and name on every fragment.
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "c0", name: "search", args: '"x"}' }] }),
      aiMessageChunk("", { tool_call_chunks: [{ index: 1, args: "}" }] }),
    ].reduce(concatChunks);
    expect(merged.tool_call_chunks).toEqual([
      { index: 0, id: "c0", name: "search", args: '{"q":"x"}' },
      { index: 1, id: "c1", name: "calc", args: "{}" },
    ]);
  });

  it("starts a new call when a reused index brings a different id", () => {
    const merged = concatChunks(
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "a", name: "f", args: "{}" }] }),
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "b", name: "g", args: "{}" }] }),
    );
    expect(merged.tool_call_chunks?.map((c) => c.id)).toEqual(["a", "b"]);
  });

  it("does not mutate its inputs", () => {
    const a = aiMessageChunk("", { tool_call_chunks: [{ index: 0, args: "{" }] });
    const b = aiMessageChunk("", { tool_call_chunks: [{ index: 0, args: "}" }] });
    const before = JSON.stringify([a, b]);
    concatChunks(a, b);
    expect(JSON.stringify([a, b])).toBe(before);
  });
});

describe("chunkToMessage", () => {
  it("returns an empty AI message for no chunks", () => {
    expect(chunkToMessage([])).toStrictEqual({ type: "ai", content: "", tool_calls: [] });
  });

  it("assembles text, reasoning, usage and metadata", () => {
    const message = chunkToMessage([
      aiMessageChunk("", { id: "m1", reasoning: "hmm " }),
      aiMessageChunk("", { reasoning: "ok" }),
      aiMessageChunk("Hel"),
      aiMessageChunk("lo", { usage: usage(3, 2), finish_reason: "stop", model: "m", chunk_position: "last" }),
    ]);
    expect(message).toStrictEqual({
      type: "ai",
      id: "m1",
      content: "Hello",
      tool_calls: [],
      reasoning: "hmm ok",
      usage: usage(3, 2),
      response_metadata: { finish_reason: "stop", model: "m" },
    });
  });

  it("parses tool-call arguments assembled across chunks, in index order", () => {
    const fragments = ['{"ci', 'ty": "Pa', 'ris", "days": ', "0, ", '"metric": false}'];
    const chunks = [
      aiMessageChunk("", { tool_call_chunks: [{ index: 1, id: "c1", name: "clock", args: "" }] }),
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "c0", name: "weather" }] }),
      ...fragments.map((args) => aiMessageChunk("", { tool_call_chunks: [{ index: 0, args }] })),
      aiMessageChunk("", { finish_reason: "tool_calls" }),
    ];
    const message = chunkToMessage(chunks);
    expect(message.tool_calls).toEqual([
      { id: "c0", name: "weather", args: { city: "Paris", days: 0, metric: false } },
      // No argument text at all means no arguments.
      { id: "c1", name: "clock", args: {} },
    ]);
    expect(message.invalid_tool_calls).toBeUndefined();
    expect(message.response_metadata).toEqual({ finish_reason: "tool_calls" });
  });

  it.each([
    ["truncated JSON", '{"q": "x', /not valid JSON/],
    ["an array", "[1]", /must be a JSON object, got an array/],
    ["null", "null", /got null/],
    ["a number", "0", /got number/],
    ["a string", '""', /got string/],
  ])("puts %s arguments into invalid_tool_calls with the error", (_label, args, error) => {
    const message = chunkToMessage([aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "c", name: "f", args }] })]);
    expect(message.tool_calls).toEqual([]);
    expect(message.invalid_tool_calls).toEqual([{ id: "c", name: "f", args, error: expect.stringMatching(error) }]);
  });

  it("treats a call without a name as invalid", () => {
    const message = chunkToMessage([aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "c", args: "{}" }] })]);
    expect(message.invalid_tool_calls).toEqual([{ id: "c", args: "{}", error: "tool call has no name" }]);
  });

  it("gives a call without an id one, so a ToolMessage can answer it", () => {
    const message = chunkToMessage([aiMessageChunk("", { tool_call_chunks: [{ index: 0, name: "f", args: "{}" }] })]);
    expect(message.tool_calls[0]?.id).toMatch(/^call_/);
  });

  it("drops empty reasoning and leaves the id out when no chunk has one", () => {
    const message = chunkToMessage([aiMessageChunk("x", { reasoning: "" })]);
    expect(message).toStrictEqual({ type: "ai", content: "x", tool_calls: [] });
  });

  it("agrees with a pairwise fold of concatChunks", () => {
    const chunks = [
      aiMessageChunk("a", { id: "m" }),
      aiMessageChunk("", { tool_call_chunks: [{ index: 0, id: "c", name: "f", args: '{"n"' }] }),
      aiMessageChunk("b", { tool_call_chunks: [{ index: 0, args: ":1}" }], usage: usage(1, 1) }),
      aiMessageChunk("", { usage: usage(0, 1), finish_reason: "tool_calls" }),
    ];
    expect(chunkToMessage([chunks.reduce(concatChunks)])).toStrictEqual(chunkToMessage(chunks));
  });
});
