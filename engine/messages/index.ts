/** Public surface of engine/messages: plain-JSON message types, constructors, guards, chunk merging, the reducer. */
export type {
  AIMessage,
  AIMessageChunk,
  AnyMessage,
  ContentBlock,
  HumanMessage,
  InvalidToolCall,
  Message,
  MessageContent,
  MessageLike,
  MessageRole,
  MessagesUpdate,
  MessageTuple,
  MessageType,
  RemoveMessage,
  ResponseMetadata,
  RoleMessage,
  SystemMessage,
  ToolCall,
  ToolCallChunk,
  ToolMessage,
  UsageMetadata,
} from "./types.ts";
export type { AIMessageChunkFields, AIMessageFields, MessageFields, ToolMessageFields } from "./build.ts";
export {
  REMOVE_ALL_MESSAGES,
  aiMessage,
  aiMessageChunk,
  contentText,
  humanMessage,
  removeMessage,
  systemMessage,
  toolMessage,
} from "./build.ts";
export {
  isAIMessage,
  isAIMessageChunk,
  isAnyMessage,
  isHumanMessage,
  isMessage,
  isRemoveMessage,
  isSystemMessage,
  isToolMessage,
} from "./guards.ts";
export { chunkToMessage, concatChunks, parseToolArgs } from "./chunks.ts";
export type { ParsedToolArgs } from "./chunks.ts";
export { addMessages } from "./reducer.ts";
export { InvalidMessageError, MESSAGE_ERROR_CODES, RemoveMessageError } from "./errors.ts";
export type { MessageErrorCode } from "./errors.ts";
