/**
 * The checkpointer port and the in-memory saver: what the engine and the hub
 * import from engine/checkpoint. The database savers have entry points of
 * their own (engine/sqlite.ts, engine/postgres.ts), so the engine loads no driver.
 */
export type {
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  Checkpointer,
  CheckpointSource,
  CheckpointTuple,
  ListOptions,
  PendingWrite,
} from "./types.ts";
export { compareCheckpointIds, newCheckpointId } from "./ids.ts";
export { MemorySaver } from "./memory.ts";
export { CheckpointNotFoundError } from "./shared.ts";
