/** Constructors and type guards: plain JSON, falsy values kept, guards agree with the shapes. */
import { describe, expect, it } from "vitest";
import {
  aiMessage,
  aiMessageChunk,
  contentText,
  humanMessage,
  isAIMessage,
  isAIMessageChunk,
  isAnyMessage,
  isHumanMessage,
  isMessage,
  isRemoveMessage,
  isSystemMessage,
  isToolMessage,
  removeMessage,
  systemMessage,
  toolMessage,
  REMOVE_ALL_MESSAGES,
} from "../../../engine/messages/index.ts";

const roundTrip = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));

describe("constructors", () => {
  it.each([
    ["human", humanMessage("hi"), { type: "human", content: "hi" }],
    ["human with empty content", humanMessage(""), { type: "human", content: "" }],
    ["human with empty blocks", humanMessage([]), { type: "human", content: [] }],
    ["human with id and name", humanMessage("x", { id: "h1", name: "ann" }), { type: "human", content: "x", id: "h1", name: "ann" }],
    ["undefined fields are left out", humanMessage("x", { id: undefined }), { type: "human", content: "x" }],
    ["system", systemMessage("be brief"), { type: "system", content: "be brief" }],
    ["ai defaults tool_calls to []", aiMessage(""), { type: "ai", content: "", tool_calls: [] }],
    [
      "ai with tool call and falsy args",
      aiMessage("", { tool_calls: [{ id: "c1", name: "f", args: { n: 0, s: "", b: false, z: null } }] }),
      { type: "ai", content: "", tool_calls: [{ id: "c1", name: "f", args: { n: 0, s: "", b: false, z: null } }] },
    ],
    ["ai keeps empty reasoning given explicitly", aiMessage("a", { reasoning: "" }), { type: "ai", content: "a", tool_calls: [], reasoning: "" }],
    [
      "tool",
      toolMessage("42", { tool_call_id: "c1", status: "success" }),
      { type: "tool", content: "42", tool_call_id: "c1", status: "success" },
    ],
    ["tool with empty call id", toolMessage("", { tool_call_id: "" }), { type: "tool", content: "", tool_call_id: "" }],
    ["chunk", aiMessageChunk("he", { chunk_position: "last" }), { type: "ai_chunk", content: "he", chunk_position: "last" }],
    ["remove", removeMessage("m1"), { type: "remove", id: "m1" }],
    ["remove all", removeMessage(REMOVE_ALL_MESSAGES), { type: "remove", id: "__remove_all__" }],
  ])("%s", (_label, built, expected) => {
    expect(built).toStrictEqual(expected);
    // Plain JSON: nothing changes on a round trip.
    expect(roundTrip(built)).toStrictEqual(built);
  });
});

describe("contentText", () => {
  it.each([
    ["", ""],
    ["abc", "abc"],
    [[], ""],
    [[{ type: "text" as const, text: "a" }, { type: "reasoning" as const, reasoning: "r" }, { type: "text" as const, text: "b" }], "ab"],
    [[{ type: "image_url" as const, image_url: { url: "data:," } }], ""],
  ])("%j -> %j", (content, text) => {
    expect(contentText(content)).toBe(text);
  });
});

describe("type guards", () => {
  const cases: Array<[label: string, value: unknown, matches: string[]]> = [
    ["human", humanMessage("hi"), ["human", "message", "any"]],
    ["human with falsy content", humanMessage(""), ["human", "message", "any"]],
    ["human with blocks", humanMessage([{ type: "text", text: "" }, { type: "image_url", image_url: { url: "x" } }]), ["human", "message", "any"]],
    ["ai", aiMessage("", { tool_calls: [{ id: "", name: "", args: {} }] }), ["ai", "message", "any"]],
    ["system", systemMessage("s"), ["system", "message", "any"]],
    ["tool", toolMessage("r", { tool_call_id: "c" }), ["tool", "message", "any"]],
    ["chunk", aiMessageChunk(""), ["chunk", "any"]],
    ["chunk with tool call chunk", aiMessageChunk("", { tool_call_chunks: [{ index: 0, args: "" }] }), ["chunk", "any"]],
    ["remove", removeMessage(""), ["remove", "any"]],
    // Wrong shapes: no guard may accept them.
    ["null", null, []],
    ["0", 0, []],
    ["empty string", "", []],
    ["false", false, []],
    ["array", [], []],
    ["empty object", {}, []],
    ["unknown type", { type: "chat", content: "x" }, []],
    ["human without content", { type: "human" }, []],
    ["human with numeric content", { type: "human", content: 0 }, []],
    ["human with null id", { type: "human", content: "", id: null }, []],
    ["human with a bad block", { type: "human", content: [{ type: "text" }] }, []],
    ["human with an unknown block", { type: "human", content: [{ type: "audio" }] }, []],
    ["ai without tool_calls", { type: "ai", content: "" }, []],
    ["ai with string args", { type: "ai", content: "", tool_calls: [{ id: "c", name: "f", args: "{}" }] }, []],
    ["ai with array args", { type: "ai", content: "", tool_calls: [{ id: "c", name: "f", args: [] }] }, []],
    ["ai with bad usage", { type: "ai", content: "", tool_calls: [], usage: { input_tokens: 1 } }, []],
    ["tool without tool_call_id", { type: "tool", content: "" }, []],
    ["tool with bad status", { type: "tool", content: "", tool_call_id: "c", status: "ok" }, []],
    ["chunk with block content", { type: "ai_chunk", content: [] }, []],
    ["chunk with negative index", { type: "ai_chunk", content: "", tool_call_chunks: [{ index: -1 }] }, []],
    ["chunk with bad position", { type: "ai_chunk", content: "", chunk_position: "first" }, []],
    ["remove without id", { type: "remove" }, []],
  ];
  const guards: Record<string, (v: unknown) => boolean> = {
    human: isHumanMessage,
    ai: isAIMessage,
    system: isSystemMessage,
    tool: isToolMessage,
    chunk: isAIMessageChunk,
    remove: isRemoveMessage,
    message: isMessage,
    any: isAnyMessage,
  };
  it.each(cases)("%s", (_label, value, matches) => {
    for (const [name, guard] of Object.entries(guards)) {
      expect([name, guard(value)]).toEqual([name, matches.includes(name)]);
    }
  });
});
