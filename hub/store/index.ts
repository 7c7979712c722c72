/**
 * The hub store port and its implementations: what the hub imports from
 * hub/store.
 */
export type { HubStore, MultitaskStrategy, RunRecord, RunStatus, ThreadRecord, ThreadStatus } from "../runs/store.ts";
export { MemoryHubStore } from "../storage/memory/hub-store.ts";
export { HubRecordExistsError, isFinalRunStatus, RUN_STATUSES } from "../runs/records.ts";
export { SqliteHubStore } from "../storage/sqlite/hub-store.ts";
