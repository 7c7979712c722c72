/**
 * The checkpointer port: how the engine persists supersteps and the writes of
 * tasks that finished inside a step. Every implementation (memory, SQLite, and
 * later Postgres) passes the conformance suite in test/engine/checkpoint/.
 *
 * Everything stored is plain JSON (channel values, write values, metadata).
 */

/** Addresses one checkpoint namespace of a thread, optionally one checkpoint in it. */
export interface CheckpointConfig {
  threadId: string;
  /** "" for the root graph; "node:taskId" (joined by "|") for subgraphs. */
  checkpointNs: string;
  /** Absent means "the latest checkpoint" when reading. */
  checkpointId?: string;
}

export interface Checkpoint {
  v: 1;
  /** Lexicographically increasing within a thread (see newCheckpointId). */
  id: string;
  /** ISO-8601 creation time. */
  ts: string;
  /** Serialized channel snapshots; a missing key means the channel is empty. */
  channelValues: Record<string, unknown>;
  /** Monotonic integer version per channel. */
  channelVersions: Record<string, number>;
  /** For each node (and "__interrupt__"), the channel versions it has seen. */
  versionsSeen: Record<string, Record<string, number>>;
}

export type CheckpointSource = "input" | "loop" | "update" | "fork";

export interface CheckpointMetadata {
  source: CheckpointSource;
  /** -1 for the input checkpoint, then 0, 1, 2, … */
  step: number;
  /** checkpointNs of each ancestor graph -> its checkpoint id. */
  parents: Record<string, string>;
  /** Anything else a caller adds (run id, user tags); must be JSON. */
  [key: string]: unknown;
}

/** A write a task made: [taskId, channel, value]. */
export type PendingWrite = [taskId: string, channel: string, value: unknown];

export interface CheckpointTuple {
  config: Required<CheckpointConfig>;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  parentConfig?: Required<CheckpointConfig>;
  /** Writes saved with putWrites against this checkpoint, in insertion order. */
  pendingWrites: PendingWrite[];
}

export interface ListOptions {
  /** Only checkpoints strictly older than this checkpoint id. */
  before?: string;
  limit?: number;
  /** Every key must equal (JSON deep-equal) the metadata's value for that key. */
  filter?: Record<string, unknown>;
}

export interface Checkpointer {
  /** The given checkpoint, or the newest in the namespace when checkpointId is absent. */
  getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined>;
  /**
   * Checkpoints of a thread, newest first. With checkpointNs given, only that
   * namespace; without it, every namespace of the thread.
   */
  list(
    config: { threadId: string; checkpointNs?: string },
    options?: ListOptions,
  ): AsyncIterable<CheckpointTuple>;
  /**
   * Stores a checkpoint. `config.checkpointId`, when present, is the parent.
   * Returns the config that addresses the stored checkpoint.
   */
  put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<Required<CheckpointConfig>>;
  /**
   * Saves writes of one task against a checkpoint. A write is keyed by
   * (taskId, channel, its index in `writes`): saving again for the same task
   * replaces the row with the same key, so re-saving a task's "__interrupt__"
   * or "__resume__" write overwrites the old one instead of appending, while
   * writes to other channels stay. pendingWrites come back in first-insertion
   * order.
   */
  putWrites(
    config: Required<CheckpointConfig>,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void>;
  /** Removes every checkpoint and write of the thread, in all namespaces. */
  deleteThread(threadId: string): Promise<void>;
}
