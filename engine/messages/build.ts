/**
 * Constructors for messages and helpers that read their text. They build plain
 * objects and leave out optional fields that are undefined, so a message
 * survives a JSON round trip unchanged (toEqual before and after).
 */
import type {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  MessageContent,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "./types.ts";

/** RemoveMessage id that clears every message before it (LangGraph's sentinel). */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

export interface MessageFields {
  id?: string;
  name?: string;
}

export type AIMessageFields = Partial<Omit<AIMessage, "type" | "content">>;
export type ToolMessageFields = MessageFields & { tool_call_id: string; status?: "success" | "error" };
export type AIMessageChunkFields = Partial<Omit<AIMessageChunk, "type" | "content">>;

/** Copies `fields` without its undefined entries. */
export function compact<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

export function humanMessage(content: MessageContent, fields: MessageFields = {}): HumanMessage {
  return { type: "human", content, ...compact(fields) };
}

export function systemMessage(content: MessageContent, fields: MessageFields = {}): SystemMessage {
  return { type: "system", content, ...compact(fields) };
}

export function aiMessage(content: MessageContent, fields: AIMessageFields = {}): AIMessage {
  return { type: "ai", content, ...compact(fields), tool_calls: fields.tool_calls ?? [] };
}

export function toolMessage(content: MessageContent, fields: ToolMessageFields): ToolMessage {
  return { type: "tool", content, ...compact(fields) };
}

export function aiMessageChunk(content: string, fields: AIMessageChunkFields = {}): AIMessageChunk {
  return { type: "ai_chunk", content, ...compact(fields) };
}

export function removeMessage(id: string): RemoveMessage {
  return { type: "remove", id };
}

/** The text of a content value: the string itself, or its text blocks joined. */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) if (block.type === "text") text += block.text;
  return text;
}
