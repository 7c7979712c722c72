/** The public surface of the Switchboard graph engine. */
export { START, END } from "./constants.ts";
export { StateGraph, type NodeOptions, type CompileOptions, type Router, type RouterResult } from "./graph/state-graph.ts";
export { CompiledStateGraph, type RunOutput, type HistoryOptions } from "./graph/compiled.ts";
export type { StateSnapshot, SnapshotTask } from "./pregel/state.ts";
export type { DrawableGraph, DrawableNode, DrawableEdge } from "./graph/describe.ts";
export { Command, Send, isCommand } from "./types.ts";
export type {
  StateSchema,
  StateOf,
  UpdateOf,
  Interrupt,
  Runtime,
  NodeAction,
  NodeResult,
  RetryPolicy,
  RunOptions,
  StreamOptions,
  Goto,
} from "./types.ts";
export { lastValue, reducer, overwrite, isOverwrite, topic, ephemeral, messages, MessagesState } from "./channels/index.ts";
export type { Channel, ChannelSpec, ChannelOptions, Overwrite, LastValueOptions, TopicOptions } from "./channels/index.ts";
export { interrupt, getWriter } from "./runtime/context.ts";
export { observeModelCall, observeToolCall } from "./runtime/hooks.ts";
export * from "./errors.ts";
export { MemorySaver, newCheckpointId } from "./checkpoint/index.ts";
export type {
  Checkpointer,
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
  ListOptions,
} from "./checkpoint/types.ts";
export { STREAM_MODES } from "./stream/types.ts";
export type { StreamMode, StreamPart, Namespace, MessageMetadata, StreamPayloads, ToolEventPayload } from "./stream/types.ts";
export * from "./messages/index.ts";
export * from "./models/index.ts";
