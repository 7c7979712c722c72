/**
 * The OpenAI Chat Completions wire format, both ways: messages and tools into
 * a request body, streamed `chat.completion.chunk` objects (parsed from
 * unknown) into AIMessageChunks. Used by every OpenAI-compatible server.
 */
import { isRecord as isObject } from "../is-record.ts";
import { contentText } from "../messages/index.ts";
import type { AIMessageChunk, Message, MessageContent, ToolCallChunk, UsageMetadata } from "../messages/index.ts";
import { MODEL_ERROR_CODES, ModelError } from "./errors.ts";
import type { Tool, ToolChoice } from "./types.ts";

export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } };

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: "system"; content: string; name?: string }
  | { role: "user"; content: string | OpenAIContentPart[]; name?: string }
  | { role: "assistant"; content: string | null; name?: string; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; content: string; tool_call_id: string };

export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export type OpenAIToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

function userContent(content: MessageContent): string | OpenAIContentPart[] {
  if (typeof content === "string") return content;
  const parts: OpenAIContentPart[] = [];
  for (const block of content) {
    // Reasoning is the model's own scratchpad; providers reject it as user input.
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image_url") parts.push({ type: "image_url", image_url: block.image_url });
  }
  return parts;
}

const withName = <T extends object>(m: T, name: string | undefined): T => (name ? { ...m, name } : m);

/** Converts engine messages into Chat Completions messages. */
export function messagesToOpenAI(messages: readonly Message[]): OpenAIMessage[] {
  return messages.map((m, i): OpenAIMessage => {
    switch (m.type) {
      case "system":
        return withName({ role: "system", content: contentText(m.content) }, m.name);
      case "human":
        return withName({ role: "user", content: userContent(m.content) }, m.name);
      case "ai": {
        const calls: OpenAIToolCall[] = m.tool_calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        }));
        // Calls with unusable arguments were answered with error tool messages;
        // the API rejects a tool message whose call is missing, so send them too.
        for (const c of m.invalid_tool_calls ?? []) {
          if (c.id) calls.push({ id: c.id, type: "function", function: { name: c.name ?? "unknown", arguments: c.args } });
        }
        const text = contentText(m.content);
        const out: OpenAIMessage = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
        if (calls.length > 0) out.tool_calls = calls;
        return withName(out, m.name);
      }
      case "tool":
        return { role: "tool", content: contentText(m.content), tool_call_id: m.tool_call_id };
      default: {
        const type = (m as { type?: unknown }).type;
        throw new ModelError(MODEL_ERROR_CODES.INVALID_REQUEST, `messages[${i}]: cannot send a ${JSON.stringify(type)} message to a model`);
      }
    }
  });
}

export function toolsToOpenAI(tools: readonly Tool[]): OpenAITool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.schema as Record<string, unknown> },
  }));
}

export function toolChoiceToOpenAI(choice: ToolChoice): OpenAIToolChoice {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

/** What one streamed chunk says, split into a delta and end-of-response facts. */
export interface OpenAIChunkParts {
  /** Text, reasoning or tool-call fragments; undefined when the chunk has none. */
  delta?: AIMessageChunk;
  id?: string;
  model?: string;
  finishReason?: string;
  usage?: UsageMetadata;
}

type Json = Record<string, unknown>;

function malformed(what: string): ModelError {
  return new ModelError(MODEL_ERROR_CODES.MALFORMED_EVENT, `unexpected chunk from the server: ${what}`);
}

/** A field that may be absent or null (servers differ), else of the given type. */
function field<T>(obj: Json, key: string, check: (v: unknown) => v is T, where: string): T | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (!check(v)) throw malformed(`${where}${key} has the wrong type`);
  return v;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

function readToolCallDeltas(list: unknown[]): ToolCallChunk[] {
  return list.map((raw, position) => {
    if (!isObject(raw)) throw malformed(`delta.tool_calls[${position}] is not an object`);
    const where = `delta.tool_calls[${position}].`;
    // Some servers leave out `index` when they send each call whole.
    const chunk: ToolCallChunk = { index: field(raw, "index", isNumber, where) ?? position };
    const id = field(raw, "id", isString, where);
    if (id) chunk.id = id;
    const fn = field(raw, "function", isObject, where);
    if (fn) {
      const name = field(fn, "name", isString, `${where}function.`);
      const args = field(fn, "arguments", isString, `${where}function.`);
      if (name) chunk.name = name;
      if (args !== undefined) chunk.args = args;
    }
    return chunk;
  });
}

function readUsage(raw: Json): UsageMetadata {
  const input = field(raw, "prompt_tokens", isNumber, "usage.") ?? 0;
  const output = field(raw, "completion_tokens", isNumber, "usage.") ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: field(raw, "total_tokens", isNumber, "usage.") ?? input + output };
}

/** Reads one parsed `data:` payload. Only the first choice is used (n = 1). */
export function readOpenAIChunk(json: unknown): OpenAIChunkParts {
  if (!isObject(json)) throw malformed("the data is not a JSON object");
  const parts: OpenAIChunkParts = {};
  const id = field(json, "id", isString, "");
  const model = field(json, "model", isString, "");
  if (id) parts.id = id;
  if (model) parts.model = model;
  const usage = field(json, "usage", isObject, "");
  if (usage) parts.usage = readUsage(usage);
  const choices = field(json, "choices", isArray, "") ?? [];
  const choice = choices.find((c) => isObject(c) && (c.index ?? 0) === 0) ?? choices[0];
  if (choice === undefined) return parts;
  if (!isObject(choice)) throw malformed("choices[0] is not an object");
  const finish = field(choice, "finish_reason", isString, "choices[0].");
  if (finish) parts.finishReason = finish;
  const delta = field(choice, "delta", isObject, "choices[0].");
  if (!delta) return parts;
  const content = field(delta, "content", isString, "delta.") ?? "";
  // DeepSeek and vLLM say reasoning_content; OpenRouter and Ollama say reasoning.
  const reasoning = field(delta, "reasoning_content", isString, "delta.") ?? field(delta, "reasoning", isString, "delta.") ?? "";
  const toolCalls = readToolCallDeltas(field(delta, "tool_calls", isArray, "delta.") ?? []);
  if (content === "" && reasoning === "" && toolCalls.length === 0) return parts;
  const chunk: AIMessageChunk = { type: "ai_chunk", content };
  if (id) chunk.id = id;
  if (reasoning !== "") chunk.reasoning = reasoning;
  if (toolCalls.length > 0) chunk.tool_call_chunks = toolCalls;
  parts.delta = chunk;
  return parts;
}

/** The human-readable message of an error body (`{ error: { message } }` and friends). */
export function errorBodyMessage(body: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return body.trim() === "" ? undefined : body.trim().slice(0, 500);
  }
  if (!isObject(json)) return undefined;
  const error = json.error;
  if (isObject(error) && isString(error.message)) return error.message;
  if (isString(error)) return error;
  if (isString(json.message)) return json.message;
  if (isString(json.detail)) return json.detail;
  return undefined;
}
