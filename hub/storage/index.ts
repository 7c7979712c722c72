/**
 * hub/storage: the adapters of the hub's ports, chosen here from the
 * configuration and nowhere else — an engine checkpointer, the hub store
 * (thread and run records) and the review store, in memory or in one SQLite
 * file shared by all three.
 *
 * With a data dir, the dir's lock (sqlite/lock.ts) is taken first, before any
 * file there is read: a second hub on the same dir fails here with
 * DataDirInUseError and has changed nothing. The lock is released last, after
 * the database is closed.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { MemorySaver, type Checkpointer } from "../../engine/checkpoint/index.ts";
import { SqliteSaver } from "../../engine/checkpoint/sqlite.ts";
import { DB_FILE_NAME } from "../config.ts";
import type { ReviewStore } from "../review/index.ts";
import type { HubStore } from "../runs/index.ts";
import { MemoryHubStore, MemoryReviewStore } from "./memory/index.ts";
import { SqliteHubStore, SqliteReviewStore, lockDataDir, openHubDatabase } from "./sqlite/index.ts";

export { DataDirInUseError } from "./sqlite/index.ts";

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
  const lock = lockDataDir(dataDir);
  try {
    const path = join(lock.dir, DB_FILE_NAME);
    const db = openHubDatabase(path);
    const close = (): void => {
      db.close();
      lock.release();
    };
    // The adapters adopt the one connection and leave it open on close(): we close it last.
    return { checkpointer: new SqliteSaver(db), store: new SqliteHubStore(db), reviews: new SqliteReviewStore(db), close, path };
  } catch (error) {
    lock.release();
    throw error;
  }
}
