/**
 * Message shapes of the engine (seed 000 §2.2). They are plain JSON objects,
 * discriminated by `type`, because they are checkpointed as JSON and sent over
 * the wire as they are: no classes, no methods, nothing that JSON drops.
 */

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "reasoning"; reasoning: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } };

export type MessageContent = string | ContentBlock[];

/** A complete tool call, as the AI message holds it (not a message itself). */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A tool call whose arguments could not be used; `error` says why. */
export interface InvalidToolCall {
  id?: string;
  name?: string;
  /** The raw argument text the model produced. */
  args: string;
  error: string;
}

export interface UsageMetadata {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

export interface ResponseMetadata {
  finish_reason?: string;
  model?: string;
}

interface MessageBase {
  /** Optional on input; addMessages assigns one (nanoid) when missing. */
  id?: string;
  content: MessageContent;
  name?: string;
}

export interface HumanMessage extends MessageBase {
  type: "human";
}

export interface SystemMessage extends MessageBase {
  type: "system";
}

export interface AIMessage extends MessageBase {
  type: "ai";
  tool_calls: ToolCall[];
  invalid_tool_calls?: InvalidToolCall[];
  usage?: UsageMetadata;
  response_metadata?: ResponseMetadata;
  reasoning?: string;
}

export interface ToolMessage extends MessageBase {
  type: "tool";
  tool_call_id: string;
  status?: "success" | "error";
}

/** One streamed fragment of a tool call; fragments with the same `index` join. */
export interface ToolCallChunk {
  index: number;
  id?: string;
  name?: string;
  /** A fragment of the arguments' JSON text. */
  args?: string;
}

/** One provider chunk of an AI message (seed 000 §2.3): deltas, not totals. */
export interface AIMessageChunk {
  type: "ai_chunk";
  id?: string;
  content: string;
  name?: string;
  reasoning?: string;
  tool_call_chunks?: ToolCallChunk[];
  usage?: UsageMetadata;
  finish_reason?: string;
  /** Model name reported by the provider, kept in response_metadata. */
  model?: string;
  chunk_position?: "last";
}

/** A state-update instruction for addMessages; never sent to a model. */
export interface RemoveMessage {
  type: "remove";
  id: string;
}

/** What a messages channel holds and what a chat model reads. */
export type Message = HumanMessage | AIMessage | SystemMessage | ToolMessage;

export type AnyMessage = Message | AIMessageChunk | RemoveMessage;

export type MessageType = AnyMessage["type"];

/** Role names accepted by the shorthands, OpenAI's and LangChain's spellings. */
export type MessageRole = "human" | "user" | "ai" | "assistant" | "system" | "tool";

/** `["human", "hi"]` */
export type MessageTuple = readonly [role: MessageRole, content: MessageContent];

/** `{ role: "user", content: "hi" }` */
export interface RoleMessage {
  role: MessageRole;
  content: MessageContent;
  id?: string;
  name?: string;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
}

export type MessageLike = AnyMessage | MessageTuple | RoleMessage;

/** What a node may write to a messages channel. */
export type MessagesUpdate = MessageLike | readonly MessageLike[];
