/** The Chat Completions format: messages and tools out, streamed chunks in. */
import { describe, expect, it } from "vitest";
import { aiMessage, humanMessage, systemMessage, toolMessage } from "../../../engine/messages/index.ts";
import type { Message } from "../../../engine/messages/index.ts";
import { messagesToOpenAI, tool, toolChoiceToOpenAI, toolsToOpenAI } from "../../../engine/models/index.ts";
import { readOpenAIChunk } from "../../../engine/models/openai-format.ts";

describe("messagesToOpenAI", () => {
  it("converts each message type", () => {
    const messages: Message[] = [
      systemMessage([{ type: "text", text: "be " }, { type: "text", text: "brief" }], { id: "s" }),
      humanMessage("", { name: "ann" }),
      humanMessage([
        { type: "text", text: "what is this?" },
        { type: "reasoning", reasoning: "dropped" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AA", detail: "low" } },
      ]),
      aiMessage("", {
        reasoning: "not sent back",
        tool_calls: [{ id: "c1", name: "search", args: { q: "x", n: 0 } }],
        invalid_tool_calls: [{ id: "c2", name: "calc", args: "{1+", error: "bad" }, { args: "{", error: "no id" }],
      }),
      toolMessage("result", { tool_call_id: "c1", status: "success" }),
      toolMessage("", { tool_call_id: "c2", status: "error" }),
      aiMessage("done"),
      aiMessage(""),
    ];
    expect(messagesToOpenAI(messages)).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "", name: "ann" },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AA", detail: "low" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "search", arguments: '{"q":"x","n":0}' } },
          { id: "c2", type: "function", function: { name: "calc", arguments: "{1+" } },
        ],
      },
      { role: "tool", content: "result", tool_call_id: "c1" },
      { role: "tool", content: "", tool_call_id: "c2" },
      { role: "assistant", content: "done" },
      { role: "assistant", content: "" },
    ]);
  });

  it("refuses a message a model cannot take, naming its position", () => {
    const bad = [humanMessage("x"), { type: "remove", id: "x" }] as unknown as Message[];
    expect(() => messagesToOpenAI(bad)).toThrow(/messages\[1\]: cannot send a "remove" message/);
  });
});

describe("tools and tool choice", () => {
  it("describes tools as functions", () => {
    const schema = { type: "object" as const, properties: { q: { type: "string" as const } }, required: ["q"] };
    expect(toolsToOpenAI([tool(() => "", { name: "search", description: "Search the web", schema })])).toEqual([
      { type: "function", function: { name: "search", description: "Search the web", parameters: schema } },
    ]);
  });

  it.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    [{ name: "search" }, { type: "function", function: { name: "search" } }],
  ] as const)("maps %j", (choice, wire) => {
    expect(toolChoiceToOpenAI(choice)).toEqual(wire);
  });
});

describe("readOpenAIChunk", () => {
  const base = { id: "chatcmpl-1", object: "chat.completion.chunk", model: "m" };
  it.each<[string, unknown, unknown]>([
    ["a role-only first delta carries no delta", { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }, { id: "chatcmpl-1", model: "m" }],
    [
      "text",
      { ...base, choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] },
      { id: "chatcmpl-1", model: "m", delta: { type: "ai_chunk", id: "chatcmpl-1", content: "Hi" } },
    ],
    ["text \"0\"", { choices: [{ delta: { content: "0" } }] }, { delta: { type: "ai_chunk", content: "0" } }],
    ["reasoning_content", { choices: [{ delta: { reasoning_content: "hm", content: null } }] }, { delta: { type: "ai_chunk", content: "", reasoning: "hm" } }],
    ["reasoning", { choices: [{ delta: { reasoning: "hm" } }] }, { delta: { type: "ai_chunk", content: "", reasoning: "hm" } }],
    [
      "tool call fragments",
      { choices: [{ delta: { tool_calls: [{ index: 1, id: "c", type: "function", function: { name: "f", arguments: "" } }, { function: { arguments: "{}" } }] } }] },
      {
        delta: {
          type: "ai_chunk",
          content: "",
          tool_call_chunks: [
            { index: 1, id: "c", name: "f", args: "" },
            { index: 1, args: "{}" },
          ],
        },
      },
    ],
    ["finish reason", { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }, { finishReason: "stop" }],
    ["usage chunk with empty choices", { choices: [], usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 } }, { usage: { input_tokens: 5, output_tokens: 0, total_tokens: 5 } }],
    ["usage without total", { usage: { prompt_tokens: 2, completion_tokens: 3 } }, { usage: { input_tokens: 2, output_tokens: 3, total_tokens: 5 } }],
    ["null usage", { choices: [], usage: null }, {}],
    ["the first choice only", { choices: [{ index: 1, delta: { content: "b" } }, { index: 0, delta: { content: "a" } }] }, { delta: { type: "ai_chunk", content: "a" } }],
  ])("%s", (_label, json, parts) => {
    expect(readOpenAIChunk(json)).toEqual(parts);
  });

  it.each<[string, unknown]>([
    ["a non-object", [1]],
    ["null", null],
    ["content of the wrong type", { choices: [{ delta: { content: 1 } }] }],
    ["choices not an array", { choices: {} }],
    ["a tool call that is not an object", { choices: [{ delta: { tool_calls: ["x"] } }] }],
  ])("refuses %s as MALFORMED_EVENT", (_label, json) => {
    expect(() => readOpenAIChunk(json)).toThrow(expect.objectContaining({ code: "MALFORMED_EVENT" }));
  });
});
