/** ScriptedChatModel: chunking, reasoning, tool calls, exhaustion, responders, delays and abort. */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { humanMessage } from "../../../engine/messages/index.ts";
import type { AIMessageChunk } from "../../../engine/messages/index.ts";
import { ModelError, ScriptedChatModel, tool } from "../../../engine/models/index.ts";
import type { Chunking } from "../../../engine/models/index.ts";
import { collect } from "./hook-host.ts";

const hi = [humanMessage("hello there")];
const pieces = (chunks: AIMessageChunk[]) => chunks.map((c) => c.content);

describe("chunking", () => {
  it.each<[string, Chunking, string, string[]]>([
    ["char splits by code point", "char", "你好", ["你", "好"]],
    ["char keeps emoji whole", "char", "a👍", ["a", "👍"]],
    ["word keeps the leading space", "word", "Hello big  world", ["Hello", " big", "  world"]],
    ["word keeps trailing space", "word", " hi  ", [" hi", "  "]],
    ["word on whitespace only", "word", "  ", ["  "]],
    ["n code points", 3, "abcdefg", ["abc", "def", "g"]],
    ["n larger than the text", 10, "ab", ["ab"]],
  ])("%s", async (_label, chunking, text, expected) => {
    const model = new ScriptedChatModel({ responses: [text], chunking });
    const chunks = await collect(model.stream(hi));
    expect(pieces(chunks)).toEqual(expected);
    expect(chunks.map((c) => c.chunk_position)).toEqual([...expected.slice(1).map(() => undefined), "last"]);
  });

  it("puts usage, finish reason and position on the last chunk only", async () => {
    const model = new ScriptedChatModel({ responses: ["ab"] });
    const [first, last] = await collect(model.stream(hi));
    expect(first).not.toHaveProperty("usage");
    expect(last).toMatchObject({
      content: "b",
      finish_reason: "stop",
      chunk_position: "last",
      usage: { input_tokens: 2, output_tokens: 2, total_tokens: 4 },
    });
  });

  it("streams an empty response as one empty last chunk", async () => {
    const model = new ScriptedChatModel({ responses: [""] });
    const chunks = await collect(model.stream([]));
    expect(chunks).toEqual([
      expect.objectContaining({ content: "", finish_reason: "stop", chunk_position: "last", usage: { input_tokens: 0, output_tokens: 1, total_tokens: 1 } }),
    ]);
  });

  it("gives every chunk of a response one id and invoke() the same kind of id", async () => {
    const model = new ScriptedChatModel({ responses: ["abc", { id: "fixed", content: "x" }] });
    const chunks = await collect(model.stream(hi));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect((await model.invoke(hi)).id).toBe("fixed");
  });

  it.each([0, -1, 1.5, Number.NaN])("rejects chunking %s", (n) => {
    expect(() => new ScriptedChatModel({ responses: [], chunking: n })).toThrow(ModelError);
  });

  it("rejects a negative delay", () => {
    expect(() => new ScriptedChatModel({ responses: [], delayMs: -1 })).toThrow(/delayMs/);
  });
});

describe("reasoning and tool calls", () => {
  it("streams reasoning before text", async () => {
    const model = new ScriptedChatModel({ responses: [{ reasoning: "so", content: "ok" }] });
    const chunks = await collect(model.stream(hi));
    expect(chunks.map((c) => [c.reasoning ?? null, c.content])).toEqual([
      ["s", ""],
      ["o", ""],
      [null, "o"],
      [null, "k"],
    ]);
    const message = await new ScriptedChatModel({ responses: [{ reasoning: "so", content: "ok" }] }).invoke(hi);
    expect(message).toMatchObject({ content: "ok", reasoning: "so" });
  });

  it("streams tool-call arguments as JSON fragments and invoke() parses them", async () => {
    const args = { city: "Paris", days: 0, metric: false, tags: [] };
    const responses = [{ content: "Let me check.", toolCalls: [{ name: "weather", args }, { id: "mine", name: "clock", args: {} }] }];
    const chunks = await collect(new ScriptedChatModel({ responses, chunking: "word" }).stream(hi));
    const fragments = chunks.flatMap((c) => c.tool_call_chunks ?? []);
    const first = fragments.filter((f) => f.index === 0);
    expect(first.length).toBeGreaterThan(3);
    expect(first[0]).toMatchObject({ id: "call_1_0", name: "weather" });
    expect(first.slice(1).every((f) => f.id === undefined && f.name === undefined)).toBe(true);
    expect(first.map((f) => f.args).join("")).toBe(JSON.stringify(args));
    expect(chunks.at(-1)).toMatchObject({ finish_reason: "tool_calls", chunk_position: "last" });

    const message = await new ScriptedChatModel({ responses, chunking: "char" }).invoke(hi);
    expect(message.content).toBe("Let me check.");
    expect(message.tool_calls).toEqual([
      { id: "call_1_0", name: "weather", args },
      { id: "mine", name: "clock", args: {} },
    ]);
    expect(message.response_metadata).toEqual({ finish_reason: "tool_calls" });
  });
});

describe("the script", () => {
  it("takes the next response on each call and says when it runs out", async () => {
    const model = new ScriptedChatModel({ responses: ["one", "two"], name: "bot" });
    expect((await model.invoke(hi)).content).toBe("one");
    expect((await model.invoke(hi)).content).toBe("two");
    const error = await model.invoke(hi).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "SCRIPT_EXHAUSTED", retryable: false });
    expect((error as Error).message).toMatch(/"bot" has no response for call #3 \(it was given 2\)/);
  });

  it("loops when asked", async () => {
    const model = new ScriptedChatModel({ responses: ["a", "b"], loop: true });
    const contents = [];
    for (let i = 0; i < 5; i++) contents.push((await model.invoke(hi)).content);
    expect(contents).toEqual(["a", "b", "a", "b", "a"]);
  });

  it("fails clearly for an empty script even with loop", async () => {
    await expect(new ScriptedChatModel({ responses: [], loop: true }).invoke(hi)).rejects.toMatchObject({ code: "SCRIPT_EXHAUSTED" });
  });

  it("responds from a function and records each call", async () => {
    const echo = tool(() => "", { name: "echo", description: "", schema: { type: "object" } });
    const model = ScriptedChatModel.fromFunction(async (messages, call) => `#${call.index}: ${messages.length} messages`, {
      tags: ["model-tag"],
    });
    const bound = model.bindTools([echo]);
    expect((await bound.invoke(hi, { tags: ["call-tag"], toolChoice: "required" })).content).toBe("#0: 1 messages");
    expect((await model.invoke([...hi, ...hi])).content).toBe("#1: 2 messages");
    expect(model.calls).toEqual([
      { index: 0, messages: hi, tools: ["echo"], tags: ["model-tag", "call-tag"], toolChoice: "required" },
      { index: 1, messages: [...hi, ...hi], tools: [], tags: ["model-tag"] },
    ]);
  });
});

describe("delay and abort", () => {
  it("waits between chunks", async () => {
    const model = new ScriptedChatModel({ responses: ["abc"], delayMs: 15 });
    const started = performance.now();
    await model.invoke(hi);
    // Three waits of 15 ms; timers may fire a millisecond early.
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
  });

  it("stops mid-stream when the signal fires, with an AbortError", async () => {
    const model = new ScriptedChatModel({ responses: ["abcdefghij"], delayMs: 5 });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of model.stream(hi, { signal: controller.signal })) {
        seen.push(chunk.content);
        if (seen.length === 3) controller.abort(new Error("user left"));
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(error).toMatchObject({ name: "AbortError", code: "ABORTED" });
    expect((error as Error).cause).toEqual(new Error("user left"));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("ends a long per-chunk wait at once", async () => {
    const model = new ScriptedChatModel({ responses: ["abc"], delayMs: 60_000 });
    const controller = new AbortController();
    const started = performance.now();
    const pending = model.invoke(hi, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("does not start a call whose signal already fired", async () => {
    const model = new ScriptedChatModel({ responses: ["a"] });
    await expect(model.invoke(hi, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(model.calls).toHaveLength(0);
    expect((await model.invoke(hi)).content).toBe("a");
  });
});
