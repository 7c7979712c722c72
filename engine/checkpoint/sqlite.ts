/**
 * SqliteSaver: the embedded default checkpointer, one SQLite file through
 * better-sqlite3. Checkpoints, metadata and write values are stored as JSON
 * text; every statement is prepared once, in the constructor.
 *
 * Lookups ride the primary key (thread_id, checkpoint_ns, checkpoint_id):
 * "latest" is `ORDER BY checkpoint_id DESC LIMIT 1` and `list` pages backwards
 * through the same index, so neither slows down as a thread's history grows.
 * Listing every namespace of a thread uses a second index ordered by id.
 *
 * On its own file the saver opens it through openSqlite (pragmas, numbered
 * migrations of CHECKPOINT_SCHEMA); the hub's file carries the same tables
 * through the hub's own migrations, which include these.
 */
import type Database from "better-sqlite3";
import { openSqlite, requireTables, type SqliteSchema } from "./sqlite-open.ts";
import { CheckpointNotFoundError, decodeWriteValue, encodeWriteValue, metadataMatches } from "./shared.ts";
import type {
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  Checkpointer,
  CheckpointTuple,
  ListOptions,
  PendingWrite,
} from "./types.ts";

/** Migration 1 of the checkpoint tables (IF NOT EXISTS: it adopts files made before versioning). */
const CHECKPOINTS_V1 = `
CREATE TABLE IF NOT EXISTS checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE INDEX IF NOT EXISTS checkpoints_thread_order
  ON checkpoints (thread_id, checkpoint_id, checkpoint_ns);
CREATE TABLE IF NOT EXISTS writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  idx INTEGER NOT NULL,
  value TEXT,
  seq INTEGER NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, idx)
);
`;

/**
 * The checkpoint tables' migrations. Released migrations are never edited;
 * a change is a new entry, which the hub's migration list must take up too
 * (a test in test/hub/storage/sqlite checks that it does).
 */
export const CHECKPOINT_MIGRATIONS = [{ version: 1, name: "checkpoints and pending writes", sql: CHECKPOINTS_V1 }] as const;

/** A file that holds checkpoints only: what `new SqliteSaver(path)` opens. */
export const CHECKPOINT_SCHEMA: SqliteSchema = {
  name: "checkpoints",
  applicationId: 0x5357_4350, // "SWCP"
  migrations: CHECKPOINT_MIGRATIONS,
};

/** The tables the saver reads and writes; an adopted connection must have them. */
export const CHECKPOINT_TABLES = ["checkpoints", "writes"] as const;

const CHECKPOINT_COLUMNS = "checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata";

/** How many rows `list` reads per query; it never holds a cursor open across a yield. */
const PAGE_SIZE = 100;

interface CheckpointRow {
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: string;
  metadata: string;
}

interface WriteRow {
  task_id: string;
  channel: string;
  value: string | null;
}

interface NsKey {
  threadId: string;
  checkpointNs: string;
}

interface CheckpointKey extends NsKey {
  checkpointId: string;
}

const BY_NS = "thread_id = @threadId AND checkpoint_ns = @checkpointNs";

/** Every statement the saver runs, prepared once per database. */
function prepareStatements(db: Database.Database) {
  return {
    selectLatest: db.prepare<NsKey, CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE ${BY_NS}
       ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    selectById: db.prepare<CheckpointKey, CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE ${BY_NS} AND checkpoint_id = @checkpointId`,
    ),
    // First page and later pages are separate statements: an "IS NULL OR"
    // bound would keep SQLite from using the index range for later pages.
    listNsFirst: db.prepare<NsKey & { limit: number }, CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE ${BY_NS}
       ORDER BY checkpoint_id DESC LIMIT @limit`,
    ),
    listNsAfter: db.prepare<NsKey & { cursorId: string; limit: number }, CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE ${BY_NS} AND checkpoint_id < @cursorId
       ORDER BY checkpoint_id DESC LIMIT @limit`,
    ),
    listAllFirst: db.prepare<{ threadId: string; limit: number }, CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = @threadId
       ORDER BY checkpoint_id DESC, checkpoint_ns DESC LIMIT @limit`,
    ),
    listAllAfter: db.prepare<
      { threadId: string; cursorId: string; cursorNs: string; limit: number },
      CheckpointRow
    >(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints
       WHERE thread_id = @threadId AND checkpoint_id <= @cursorId
         AND (checkpoint_id < @cursorId OR checkpoint_ns < @cursorNs)
       ORDER BY checkpoint_id DESC, checkpoint_ns DESC LIMIT @limit`,
    ),
    selectWrites: db.prepare<CheckpointKey, WriteRow>(
      `SELECT task_id, channel, value FROM writes
       WHERE ${BY_NS} AND checkpoint_id = @checkpointId ORDER BY seq`,
    ),
    upsertCheckpoint: db.prepare<
      CheckpointKey & { parentId: string | null; checkpoint: string; metadata: string }
    >(
      `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       VALUES (@threadId, @checkpointNs, @checkpointId, @parentId, @checkpoint, @metadata)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
         parent_checkpoint_id = excluded.parent_checkpoint_id,
         checkpoint = excluded.checkpoint,
         metadata = excluded.metadata`,
    ),
    nextSeq: db
      .prepare<CheckpointKey, number>(
        `SELECT COALESCE(MAX(seq) + 1, 0) FROM writes WHERE ${BY_NS} AND checkpoint_id = @checkpointId`,
      )
      .pluck(),
    // An upsert rather than INSERT OR REPLACE: a replaced row keeps its seq,
    // so pendingWrites stay in first-insertion order.
    upsertWrite: db.prepare<
      CheckpointKey & { taskId: string; channel: string; idx: number; value: string | null; seq: number }
    >(
      `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, idx, value, seq)
       VALUES (@threadId, @checkpointNs, @checkpointId, @taskId, @channel, @idx, @value, @seq)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, idx) DO UPDATE SET
         value = excluded.value`,
    ),
    hasCheckpoint: db
      .prepare<CheckpointKey, number>(
        `SELECT 1 FROM checkpoints WHERE ${BY_NS} AND checkpoint_id = @checkpointId`,
      )
      .pluck(),
    deleteCheckpoints: db.prepare<[string]>("DELETE FROM checkpoints WHERE thread_id = ?"),
    deleteWrites: db.prepare<[string]>("DELETE FROM writes WHERE thread_id = ?"),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

export class SqliteSaver implements Checkpointer {
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #sql: Statements;

  readonly #readTuple: (key: NsKey, checkpointId: string | undefined) => CheckpointTuple | undefined;
  readonly #saveWrites: (key: CheckpointKey, taskId: string, values: Array<[string, string | null]>) => void;
  readonly #removeThread: (threadId: string) => void;

  /**
   * Opens (creating and migrating if needed) the SQLite file at a path, or
   * adopts an open Database that already has the checkpoint tables (the hub's,
   * say), which close() then leaves open.
   */
  constructor(pathOrDb: string | Database.Database) {
    this.#ownsDb = typeof pathOrDb === "string";
    this.db = typeof pathOrDb === "string" ? openSqlite(pathOrDb, CHECKPOINT_SCHEMA) : pathOrDb;
    const db = this.db;
    if (!this.#ownsDb) requireTables(db, "SqliteSaver", CHECKPOINT_TABLES);
    const sql = (this.#sql = prepareStatements(db));

    // One transaction per call, so a tuple's checkpoint and writes come from
    // one snapshot and a multi-row write is all or nothing.
    this.#readTuple = db.transaction((key: NsKey, checkpointId: string | undefined) => {
      const row =
        checkpointId === undefined
          ? sql.selectLatest.get(key)
          : sql.selectById.get({ ...key, checkpointId });
      return row && this.#toTuple(key.threadId, row, JSON.parse(row.metadata) as CheckpointMetadata);
    });
    this.#saveWrites = db.transaction(
      (key: CheckpointKey, taskId: string, values: Array<[string, string | null]>) => {
        if (sql.hasCheckpoint.get(key) === undefined) {
          throw new CheckpointNotFoundError(key.threadId, key.checkpointId, key.checkpointNs);
        }
        const seq = sql.nextSeq.get(key) ?? 0;
        values.forEach(([channel, value], idx) => {
          sql.upsertWrite.run({ ...key, taskId, channel, idx, value, seq: seq + idx });
        });
      },
    );
    this.#removeThread = db.transaction((threadId: string) => {
      sql.deleteWrites.run(threadId);
      sql.deleteCheckpoints.run(threadId);
    });
  }

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const key = { threadId: config.threadId, checkpointNs: config.checkpointNs };
    return this.#readTuple(key, config.checkpointId);
  }

  async *list(
    config: { threadId: string; checkpointNs?: string },
    options: ListOptions = {},
  ): AsyncIterable<CheckpointTuple> {
    const { threadId, checkpointNs } = config;
    let remaining = options.limit ?? Infinity;
    // A keyset cursor over (id, namespace): each page is a fresh query, so
    // the caller may use the saver between items without "database busy".
    let cursorId = options.before;
    let cursorNs = "";
    while (remaining > 0) {
      // Without a filter every row is yielded, so read no more than asked for.
      const limit = options.filter === undefined ? Math.min(remaining, PAGE_SIZE) : PAGE_SIZE;
      const rows = this.#page(threadId, checkpointNs, cursorId, cursorNs, limit);
      for (const row of rows) {
        cursorId = row.checkpoint_id;
        cursorNs = row.checkpoint_ns;
        // The filter runs here, not in SQL: json_extract turns booleans into
        // 0/1 and nested values into text, so equality there is not JSON equality.
        const metadata = JSON.parse(row.metadata) as CheckpointMetadata;
        if (!metadataMatches(metadata, options.filter)) continue;
        remaining -= 1;
        yield this.#toTuple(threadId, row, metadata);
        if (remaining <= 0) return;
      }
      if (rows.length < limit) return;
    }
  }

  async put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<Required<CheckpointConfig>> {
    const { threadId, checkpointNs } = config;
    const checkpointId = checkpoint.id;
    if (typeof checkpointId !== "string" || checkpointId === "") {
      throw new TypeError("checkpoint.id must be a non-empty string");
    }
    this.#sql.upsertCheckpoint.run({
      threadId,
      checkpointNs,
      checkpointId,
      parentId: config.checkpointId ?? null,
      checkpoint: JSON.stringify(checkpoint),
      metadata: JSON.stringify(metadata),
    });
    return { threadId, checkpointNs, checkpointId };
  }

  async putWrites(
    config: Required<CheckpointConfig>,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void> {
    const { threadId, checkpointNs, checkpointId } = config;
    const key = { threadId, checkpointNs, checkpointId };
    // Encode before the transaction opens: a value that is not JSON fails the call early.
    const values = writes.map(([channel, value]): [string, string | null] => [
      channel,
      encodeWriteValue(value) ?? null,
    ]);
    this.#saveWrites(key, taskId, values);
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#removeThread(threadId);
  }

  /** Closes the database if this saver opened it. */
  close(): void {
    if (this.#ownsDb && this.db.open) this.db.close();
  }

  #page(
    threadId: string,
    checkpointNs: string | undefined,
    cursorId: string | undefined,
    cursorNs: string,
    limit: number,
  ): CheckpointRow[] {
    if (checkpointNs !== undefined) {
      return cursorId === undefined
        ? this.#sql.listNsFirst.all({ threadId, checkpointNs, limit })
        : this.#sql.listNsAfter.all({ threadId, checkpointNs, cursorId, limit });
    }
    // `before` enters as the cursor (before, ""): no namespace sorts below "",
    // so only ids strictly older than `before` follow it.
    return cursorId === undefined
      ? this.#sql.listAllFirst.all({ threadId, limit })
      : this.#sql.listAllAfter.all({ threadId, cursorId, cursorNs, limit });
  }

  #toTuple(threadId: string, row: CheckpointRow, metadata: CheckpointMetadata): CheckpointTuple {
    const key = { threadId, checkpointNs: row.checkpoint_ns, checkpointId: row.checkpoint_id };
    const pendingWrites = this.#sql.selectWrites
      .all(key)
      .map((w): PendingWrite => [w.task_id, w.channel, decodeWriteValue(w.value)]);
    const tuple: CheckpointTuple = {
      config: key,
      checkpoint: JSON.parse(row.checkpoint) as Checkpoint,
      metadata,
      pendingWrites,
    };
    if (row.parent_checkpoint_id !== null) {
      tuple.parentConfig = { ...key, checkpointId: row.parent_checkpoint_id };
    }
    return tuple;
  }
}
