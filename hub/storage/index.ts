/**
 * hub/storage: the adapters of the hub's ports, chosen here from the
 * configuration and nowhere else — an engine checkpointer, the hub store
 * (thread and run records) and the review store, in memory or in one SQLite
 * file shared by all three.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { MemorySaver, SqliteSaver, type Checkpointer } from "../../engine/index.ts";
import { DB_FILE_NAME } from "../config.ts";
import type { ReviewStore } from "../review/index.ts";
import type { HubStore } from "../runs/index.ts";
import { MemoryHubStore, MemoryReviewStore } from "./memory/index.ts";
import { SqliteHubStore, SqliteReviewStore } from "./sqlite/index.ts";

export interface Storage {
  checkpointer: Checkpointer;
  store: HubStore;
  reviews: ReviewStore;
  close: () => void;
  path: string | null;
}

export function openStorage(dataDir: string | null): Storage {
  if (dataDir === null) return { checkpointer: new MemorySaver(), store: new MemoryHubStore(), reviews: new MemoryReviewStore(), close: () => {}, path: null };
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DB_FILE_NAME);
  const db = new Database(path);
  // Both adopt the one connection and leave it open on close(): we close it last.
  return { checkpointer: new SqliteSaver(db), store: new SqliteHubStore(db), reviews: new SqliteReviewStore(db), close: () => db.close(), path };
}
