/**
 * The checkpointer port and its implementations: what the engine and the hub
 * import from engine/checkpoint.
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
export { SqliteSaver } from "./sqlite.ts";
