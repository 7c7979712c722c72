/** SQLite adapters of the hub's ports: the embedded default, one file shared with the engine's checkpoints. */
export { SqliteHubStore } from "./hub-store.ts";
export { SqliteReviewStore } from "./review-store.ts";
export { openHubDatabase } from "./open.ts";
export { HUB_SCHEMA } from "./migrations.ts";
export { DataDirInUseError, LOCK_FILE_NAME, lockDataDir, type DataDirLock } from "./lock.ts";
export { SqliteItemStore } from "./item-store.ts";
export { SqliteWebhookOutbox } from "./webhook-outbox.ts";
export { SqliteLinkUses } from "./link-uses.ts";
