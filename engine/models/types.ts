/**
 * The chat model port (seed 000 §2.1) and tool definitions. A model streams
 * AIMessageChunks; invoke() returns the merged AIMessage. Providers extend
 * BaseChatModel, which adds the run hooks, ids, abort and error handling.
 */
import type { AIMessage, AIMessageChunk, Message, ToolCall } from "../messages/index.ts";
import { MODEL_ERROR_CODES, ModelError } from "./errors.ts";

/** A JSON Schema (draft 2020-12 subset that providers accept). */
export interface JsonSchema {
  type?: "object" | "array" | "string" | "number" | "integer" | "boolean" | "null" | ReadonlyArray<string>;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  items?: JsonSchema;
  enum?: readonly unknown[];
  additionalProperties?: boolean | JsonSchema;
  [keyword: string]: unknown;
}

/** Tool arguments are always a JSON object. */
export type ToolSchema = JsonSchema & { type: "object" };

export type ToolChoice = "auto" | "none" | "required" | { name: string };

export interface ModelCallOptions {
  /** Stops reading the stream; the call rejects with an error named "AbortError". */
  signal?: AbortSignal;
  /** Call tags, merged with the model's; `nostream` hides the call from `messages`. */
  tags?: readonly string[];
  toolChoice?: ToolChoice;
}

export interface ToolContext {
  /** The call this invocation answers. */
  toolCall: ToolCall;
  /** The node's signal, when the tool node was given one. */
  signal?: AbortSignal;
  /** Reports partial output (a `tools` stream delta); a no-op when nobody listens. */
  writeOutput(delta: unknown): void;
}

export interface Tool<Args = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  readonly schema: ToolSchema;
  /**
   * Runs the tool. `args` are what the model sent, checked only against the
   * schema's `required` list and top-level property types. A string result is
   * the tool message's content; anything else is sent as JSON.
   */
  invoke(args: Args, ctx: ToolContext): Promise<unknown> | unknown;
}

export interface ChatModel {
  /** Reported as `model` in the messages stream metadata. */
  readonly name: string;
  /** Yields the response's chunks as they arrive; all share the response's id. */
  stream(messages: readonly Message[], options?: ModelCallOptions): AsyncIterable<AIMessageChunk>;
  /** The merged response. Still streams to a `messages` subscriber (seed 000 §2.6). */
  invoke(messages: readonly Message[], options?: ModelCallOptions): Promise<AIMessage>;
  /** A model that offers `tools` on every call; replaces tools bound before. */
  bindTools(tools: readonly Tool[]): ChatModel;
}

export interface ToolFields {
  name: string;
  description: string;
  schema: ToolSchema;
}

/** Defines a tool from a function. */
export function tool<Args = Record<string, unknown>>(
  fn: (args: Args, ctx: ToolContext) => Promise<unknown> | unknown,
  fields: ToolFields,
): Tool<Args> {
  // The pattern providers accept for function names (OpenAI: 1–64 of these).
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(fields.name)) {
    throw new ModelError(
      MODEL_ERROR_CODES.INVALID_CONFIG,
      `tool name ${JSON.stringify(fields.name)} must be 1-64 letters, digits, "_" or "-"`,
    );
  }
  if (fields.schema.type !== "object") {
    throw new ModelError(MODEL_ERROR_CODES.INVALID_CONFIG, `tool "${fields.name}": schema.type must be "object"`);
  }
  return { name: fields.name, description: fields.description, schema: fields.schema, invoke: fn };
}
