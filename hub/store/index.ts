/**
 * The hub store port and its implementations: what the hub imports from
 * hub/store.
 */
export type { HubStore, MultitaskStrategy, RunRecord, RunStatus, ThreadRecord, ThreadStatus } from "./types.ts";
export { MemoryHubStore } from "./memory.ts";
export { HubRecordExistsError, isFinalRunStatus, RUN_STATUSES } from "./shared.ts";
export { SqliteHubStore } from "./sqlite.ts";
