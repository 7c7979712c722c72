/**
 * Structural checks of messages that arrive as `unknown` (checkpoints, the
 * wire, user nodes). One validator backs every type guard and the reducer's
 * input check, so a guard can never accept what the reducer rejects.
 */
import type {
  AIMessage,
  AIMessageChunk,
  AnyMessage,
  HumanMessage,
  Message,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "./types.ts";
import { isRecord } from "../is-record.ts";

type Problem = [path: string, problem: string] | undefined;


function optional(obj: Record<string, unknown>, key: string, check: (v: unknown) => boolean, what: string): Problem {
  const v = obj[key];
  return v === undefined || check(v) ? undefined : [`.${key}`, `expected ${what}`];
}

const isString = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0;

function first(...problems: Array<() => Problem>): Problem {
  for (const check of problems) {
    const p = check();
    if (p) return p;
  }
  return undefined;
}

function eachOf(value: unknown, key: string, check: (item: unknown) => Problem): Problem {
  if (!Array.isArray(value)) return [`.${key}`, "expected an array"];
  for (let i = 0; i < value.length; i++) {
    const p = check(value[i]);
    if (p) return [`.${key}[${i}]${p[0]}`, p[1]];
  }
  return undefined;
}

function blockProblem(block: unknown): Problem {
  if (!isRecord(block)) return ["", "expected a content block object"];
  switch (block.type) {
    case "text":
      return isString(block.text) ? undefined : [".text", "expected a string"];
    case "reasoning":
      return isString(block.reasoning) ? undefined : [".reasoning", "expected a string"];
    case "image_url": {
      const img = block.image_url;
      return isRecord(img) && isString(img.url) ? undefined : [".image_url.url", "expected a string"];
    }
    default:
      return [".type", `unknown content block type ${JSON.stringify(block.type)}`];
  }
}

function contentProblem(content: unknown): Problem {
  if (isString(content)) return undefined;
  if (Array.isArray(content)) return eachOf(content, "content", blockProblem);
  return [".content", "expected a string or an array of content blocks"];
}

function isUsage(usage: unknown): boolean {
  return isRecord(usage) && isCount(usage.input_tokens) && isCount(usage.output_tokens) && isCount(usage.total_tokens);
}

function toolCallProblem(call: unknown): Problem {
  if (!isRecord(call)) return ["", "expected a tool call object"];
  if (!isString(call.id)) return [".id", "expected a string"];
  if (!isString(call.name)) return [".name", "expected a string"];
  if (!isRecord(call.args)) return [".args", "expected an object"];
  return undefined;
}

function invalidToolCallProblem(call: unknown): Problem {
  if (!isRecord(call)) return ["", "expected an invalid tool call object"];
  return first(
    () => (isString(call.args) ? undefined : [".args", "expected a string"]),
    () => (isString(call.error) ? undefined : [".error", "expected a string"]),
    () => optional(call, "id", isString, "a string"),
    () => optional(call, "name", isString, "a string"),
  );
}

function toolCallChunkProblem(chunk: unknown): Problem {
  if (!isRecord(chunk)) return ["", "expected a tool call chunk object"];
  return first(
    () => (Number.isInteger(chunk.index) && (chunk.index as number) >= 0 ? undefined : [".index", "expected an integer >= 0"]),
    () => optional(chunk, "id", isString, "a string"),
    () => optional(chunk, "name", isString, "a string"),
    () => optional(chunk, "args", isString, "a string"),
  );
}

/** Why `value` is not an AnyMessage, as [path, problem]; undefined when it is one. */
export function messageProblem(value: unknown): Problem {
  if (!isRecord(value)) return ["", "expected a message object"];
  const common = (): Problem =>
    first(
      () => optional(value, "id", isString, "a string"),
      () => optional(value, "name", isString, "a string"),
    );
  switch (value.type) {
    case "human":
    case "system":
      return first(common, () => contentProblem(value.content));
    case "ai":
      return first(
        common,
        () => contentProblem(value.content),
        () => eachOf(value.tool_calls, "tool_calls", toolCallProblem),
        () => (value.invalid_tool_calls === undefined ? undefined : eachOf(value.invalid_tool_calls, "invalid_tool_calls", invalidToolCallProblem)),
        () => optional(value, "usage", isUsage, "{ input_tokens, output_tokens, total_tokens }"),
        () => optional(value, "response_metadata", isRecord, "an object"),
        () => optional(value, "reasoning", isString, "a string"),
      );
    case "tool":
      return first(
        common,
        () => contentProblem(value.content),
        () => (isString(value.tool_call_id) ? undefined : [".tool_call_id", "expected a string"]),
        () => optional(value, "status", (s) => s === "success" || s === "error", '"success" or "error"'),
      );
    case "ai_chunk":
      return first(
        common,
        () => (isString(value.content) ? undefined : [".content", "expected a string (a chunk's content is a text delta)"]),
        () => optional(value, "reasoning", isString, "a string"),
        () => (value.tool_call_chunks === undefined ? undefined : eachOf(value.tool_call_chunks, "tool_call_chunks", toolCallChunkProblem)),
        () => optional(value, "usage", isUsage, "{ input_tokens, output_tokens, total_tokens }"),
        () => optional(value, "finish_reason", isString, "a string"),
        () => optional(value, "model", isString, "a string"),
        () => optional(value, "chunk_position", (p) => p === "last", '"last"'),
      );
    case "remove":
      return isString(value.id) ? undefined : [".id", "expected a string"];
    default:
      return [".type", `unknown message type ${JSON.stringify(value.type)}`];
  }
}

function guard<T extends AnyMessage>(type: T["type"]) {
  return (value: unknown): value is T => isRecord(value) && value.type === type && messageProblem(value) === undefined;
}

export const isHumanMessage = guard<HumanMessage>("human");
export const isAIMessage = guard<AIMessage>("ai");
export const isSystemMessage = guard<SystemMessage>("system");
export const isToolMessage = guard<ToolMessage>("tool");
export const isAIMessageChunk = guard<AIMessageChunk>("ai_chunk");
export const isRemoveMessage = guard<RemoveMessage>("remove");

const MESSAGE_TYPES: ReadonlySet<unknown> = new Set(["human", "ai", "system", "tool"]);

/** A complete message (what a messages channel holds). */
export function isMessage(value: unknown): value is Message {
  return isRecord(value) && MESSAGE_TYPES.has(value.type) && messageProblem(value) === undefined;
}

/** Any message, chunk or RemoveMessage. */
export function isAnyMessage(value: unknown): value is AnyMessage {
  return messageProblem(value) === undefined;
}
