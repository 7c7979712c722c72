/** Public surface of engine/models: the ChatModel port, tools, the base class, providers, the tool node. */
export type { ChatModel, JsonSchema, ModelCallOptions, Tool, ToolChoice, ToolContext, ToolFields, ToolSchema } from "./types.ts";
export { tool } from "./types.ts";
export { BaseChatModel } from "./base.ts";
export type { BaseChatModelFields, ModelRequest } from "./base.ts";
export { ScriptedChatModel } from "./scripted.ts";
export type { Chunking, ScriptedCall, ScriptedChatModelFields, ScriptedResponder, ScriptedResponse, ScriptedToolCall } from "./scripted.ts";
export { OpenAICompatibleChatModel } from "./openai-compatible.ts";
export type { OpenAICompatibleChatModelFields } from "./openai-compatible.ts";
export { messagesToOpenAI, toolChoiceToOpenAI, toolsToOpenAI } from "./openai-format.ts";
export type { OpenAIContentPart, OpenAIMessage, OpenAITool, OpenAIToolCall, OpenAIToolChoice } from "./openai-format.ts";
export { toolNode, toolsCondition } from "./tool-node.ts";
export type { ToolNodeState, ToolNodeOptions, ToolNodeRuntime } from "./tool-node.ts";
export {
  MODEL_ERROR_CODES,
  ModelAbortError,
  ModelError,
  RETRYABLE_MODEL_ERROR_CODES,
  isAbortError,
} from "./errors.ts";
export type { ModelErrorCode, ModelErrorDetails } from "./errors.ts";
