/**
 * The stream envelope every producer (loop, chat-model hook, custom writer)
 * writes and `graph.stream()` yields: the seeds' v2 shape `{ type, ns, data }`.
 */

export const STREAM_MODES = [
  "values",
  "updates",
  "messages",
  "custom",
  "tasks",
  "checkpoints",
  "debug",
  "tools",
] as const;

export type StreamMode = (typeof STREAM_MODES)[number];

/**
 * Namespace path of the producing graph: [] for the root, ["node:taskId"] for a
 * subgraph run as node `node`, ["outer:t1", "inner:t2"] for nested ones.
 */
export type Namespace = readonly string[];

/** Metadata that accompanies each `messages` part. Plain JSON. */
export interface MessageMetadata {
  threadId: string;
  runId: string;
  node: string;
  step: number;
  triggers: string[];
  path: Array<string | number>;
  checkpointNs: string;
  taskId: string;
  tags: string[];
  /** Model name the chunk came from, when the model reports one. */
  model?: string;
}

export interface InterruptInfo {
  id: string;
  value: unknown;
}

export interface TaskStartPayload {
  id: string;
  name: string;
  input: unknown;
  triggers: string[];
}

export interface TaskResultPayload {
  id: string;
  name: string;
  error: string | null;
  result: Record<string, unknown> | null;
  interrupts: InterruptInfo[];
}

export interface CheckpointPayload {
  config: { threadId: string; checkpointNs: string; checkpointId: string };
  parentConfig: { threadId: string; checkpointNs: string; checkpointId: string } | null;
  values: Record<string, unknown>;
  metadata: Record<string, unknown>;
  next: string[];
  tasks: Array<{ id: string; name: string; interrupts: InterruptInfo[]; error: string | null; result: unknown }>;
}

/** Tool lifecycle, reported by tools run through engine/models' ToolNode. */
export type ToolEventPayload =
  | { event: "tool-started"; toolCallId: string; name: string; input: unknown }
  | { event: "tool-output-delta"; toolCallId: string; name: string; delta: unknown }
  | { event: "tool-finished"; toolCallId: string; name: string; output: unknown }
  | { event: "tool-error"; toolCallId: string; name: string; message: string };

/** Payload of each mode. */
export interface StreamPayloads {
  /** Full (public) state after a step's writes are applied. */
  values: Record<string, unknown>;
  /**
   * `{ [node]: update }` when a task's writes exist; `{ __interrupt__: [...] }`
   * when a task pauses.
   */
  updates: Record<string, unknown>;
  /** [AIMessageChunk, metadata] while a model streams inside a node. */
  messages: [chunk: unknown, metadata: MessageMetadata];
  custom: unknown;
  tasks: TaskStartPayload | TaskResultPayload;
  checkpoints: CheckpointPayload;
  debug: {
    type: "task" | "task_result" | "checkpoint";
    step: number;
    timestamp: string;
    payload: TaskStartPayload | TaskResultPayload | CheckpointPayload;
  };
  tools: ToolEventPayload;
}

export type StreamPart = {
  [M in StreamMode]: { type: M; ns: Namespace; data: StreamPayloads[M] };
}[StreamMode];
