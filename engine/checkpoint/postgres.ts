/**
 * PostgresSaver: the checkpointer for several hub nodes sharing one Postgres
 * database, through node-postgres (`pg`) with a connection pool.
 *
 * Ids and namespaces are `COLLATE "C"` so they sort by bytes, as in the other
 * savers, whatever the database's default collation, and the primary key
 * serves "latest" and paging. Checkpoints and metadata are `json` columns (the text is kept as written, so
 * a read gives back exactly what a JSON round trip would, "\u0000" included,
 * which `jsonb` refuses); write values are `json` too, with SQL NULL standing
 * for `undefined`. A tuple — checkpoint plus its pending writes — is read by one
 * statement, so both come from one snapshot and cost one round trip.
 *
 * Writes reference their checkpoint by a foreign key (ON DELETE CASCADE): a
 * write against a checkpoint that does not exist fails in the database, even
 * against a concurrent deleteThread. Their order is a global identity column
 * kept on upsert, so pendingWrites come back in first-insertion order even when
 * parallel tasks of one step save at the same moment.
 *
 * The tables live in a schema of their own choosing (default "switchboard"),
 * created and migrated by `PostgresSaver.open` (see postgres-schema.ts).
 */
import pg from "pg";
import type { Pool, PoolConfig } from "pg";
import { migrate, quoteSchema, type Migration } from "./postgres-schema.ts";
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

export const CHECKPOINT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE {schema}.checkpoints (
  thread_id text NOT NULL,
  checkpoint_ns text COLLATE "C" NOT NULL,
  checkpoint_id text COLLATE "C" NOT NULL,
  parent_checkpoint_id text,
  checkpoint json NOT NULL,
  metadata json NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE INDEX checkpoints_thread_order ON {schema}.checkpoints (thread_id, checkpoint_id DESC, checkpoint_ns DESC);
CREATE TABLE {schema}.checkpoint_writes (
  thread_id text NOT NULL,
  checkpoint_ns text COLLATE "C" NOT NULL,
  checkpoint_id text COLLATE "C" NOT NULL,
  task_id text NOT NULL,
  channel text NOT NULL,
  idx integer NOT NULL,
  value json,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, idx),
  FOREIGN KEY (thread_id, checkpoint_ns, checkpoint_id)
    REFERENCES {schema}.checkpoints (thread_id, checkpoint_ns, checkpoint_id) ON DELETE CASCADE
);`,
  },
];

/** How many rows `list` reads per query; it never holds a cursor open across a yield. */
const PAGE_SIZE = 100;

/** Postgres' SQLSTATE for a foreign key violation. */
const FOREIGN_KEY_VIOLATION = "23503";

interface CheckpointRow {
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  /** [task_id, channel, value as JSON text] in seq order; null text means undefined. */
  writes: Array<[string, string, string | null]> | null;
}

export interface PostgresSaverOptions {
  /** A pool to share (close() then leaves it open), or how to make one. */
  pool?: Pool;
  connectionString?: string;
  poolConfig?: PoolConfig;
  /** The schema holding the tables; created if missing. Default "switchboard". */
  schema?: string;
  /**
   * Runs before every write (put, putWrites, deleteThread) in the write's own
   * transaction; throwing refuses the write. A hub with several nodes fences
   * here: a node whose run lost its lease must not write the thread again.
   */
  writeGuard?: WriteGuard;
}

/** A query inside the write's transaction. */
export type GuardQuery = (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
export type WriteGuard = (threadId: string, query: GuardQuery) => Promise<void>;

export class PostgresSaver implements Checkpointer {
  readonly pool: Pool;
  readonly schema: string;
  readonly #ownsPool: boolean;
  readonly #sql: ReturnType<typeof statements>;
  readonly #guard: WriteGuard | undefined;

  /** Connects, creates or migrates the schema, and returns a ready saver. */
  static async open(options: PostgresSaverOptions): Promise<PostgresSaver> {
    const schema = options.schema ?? "switchboard";
    quoteSchema(schema); // a bad name fails before any connection is made
    const ownsPool = options.pool === undefined;
    const pool =
      options.pool ?? new pg.Pool({ ...options.poolConfig, connectionString: options.connectionString });
    const saver = new PostgresSaver(pool, schema, ownsPool, options.writeGuard);
    try {
      await migrate(pool, { schema: saver.schema, component: "checkpoints", migrations: CHECKPOINT_MIGRATIONS });
    } catch (error) {
      await saver.close();
      throw error;
    }
    return saver;
  }

  private constructor(pool: Pool, schema: string, ownsPool: boolean, guard: WriteGuard | undefined) {
    this.pool = pool;
    this.#guard = guard;
    this.schema = schema;
    this.#ownsPool = ownsPool;
    this.#sql = statements(quoteSchema(schema));
    if (ownsPool) {
      // An idle client's connection dropping (a Postgres restart) must not
      // crash the process; the next query gets a fresh connection.
      pool.on("error", () => {});
    }
  }

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, checkpointNs, checkpointId } = config;
    const result =
      checkpointId === undefined
        ? await this.pool.query<CheckpointRow>(this.#sql.selectLatest, [threadId, checkpointNs])
        : await this.pool.query<CheckpointRow>(this.#sql.selectById, [threadId, checkpointNs, checkpointId]);
    const row = result.rows[0];
    return row && toTuple(threadId, row);
  }

  async *list(
    config: { threadId: string; checkpointNs?: string },
    options: ListOptions = {},
  ): AsyncIterable<CheckpointTuple> {
    const { threadId, checkpointNs } = config;
    let remaining = options.limit ?? Infinity;
    // A keyset cursor over (id, namespace): each page is a fresh query, so the
    // caller may use the saver between items and no connection is held.
    let cursorId = options.before;
    let cursorNs = "";
    while (remaining > 0) {
      const limit = options.filter === undefined ? Math.min(remaining, PAGE_SIZE) : PAGE_SIZE;
      const rows = await this.#page(threadId, checkpointNs, cursorId, cursorNs, limit);
      for (const row of rows) {
        cursorId = row.checkpoint_id;
        cursorNs = row.checkpoint_ns;
        // The filter runs here, as in the other savers: JSON equality, not
        // jsonb containment (which would match a sub-object).
        if (!metadataMatches(row.metadata, options.filter)) continue;
        remaining -= 1;
        yield toTuple(threadId, row);
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
    await this.#write(threadId, this.#sql.upsertCheckpoint, [
      threadId,
      checkpointNs,
      checkpointId,
      config.checkpointId ?? null,
      JSON.stringify(checkpoint),
      JSON.stringify(metadata),
    ]);
    return { threadId, checkpointNs, checkpointId };
  }

  async putWrites(
    config: Required<CheckpointConfig>,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void> {
    const { threadId, checkpointNs, checkpointId } = config;
    if (writes.length === 0) {
      const found = await this.pool.query(this.#sql.hasCheckpoint, [threadId, checkpointNs, checkpointId]);
      if (found.rowCount === 0) throw new CheckpointNotFoundError(threadId, checkpointId, checkpointNs);
      return;
    }
    // Encoded before the query: a value that is not JSON fails the call early.
    const channels = writes.map(([channel]) => channel);
    const values = writes.map(([, value]) => encodeWriteValue(value) ?? null);
    try {
      await this.#write(threadId, this.#sql.upsertWrites, [threadId, checkpointNs, checkpointId, taskId, channels, values]);
    } catch (error) {
      if (error instanceof pg.DatabaseError && error.code === FOREIGN_KEY_VIOLATION) {
        throw new CheckpointNotFoundError(threadId, checkpointId, checkpointNs);
      }
      throw error;
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    // Writes go with their checkpoints (ON DELETE CASCADE), in one statement.
    await this.#write(threadId, this.#sql.deleteThread, [threadId]);
  }

  /** One statement; with a guard, in a transaction that runs the guard first. */
  async #write(threadId: string, sql: string, params: unknown[]): Promise<void> {
    const guard = this.#guard;
    if (guard === undefined) {
      await this.pool.query(sql, params);
      return;
    }
    const client = await this.pool.connect();
    // Lost while checked out, the connection emits 'error' on the client: without a listener that is an uncaught exception.
    client.on("error", ignoreLostConnection);
    try {
      await client.query("BEGIN");
      await guard(threadId, (text, values) => client.query(text, values));
      await client.query(sql, params);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.off("error", ignoreLostConnection);
      client.release();
    }
  }

  /** Ends the pool if this saver made it. */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.pool.end();
  }

  async #page(
    threadId: string,
    checkpointNs: string | undefined,
    cursorId: string | undefined,
    cursorNs: string,
    limit: number,
  ): Promise<CheckpointRow[]> {
    const sql = this.#sql;
    const result =
      checkpointNs !== undefined
        ? cursorId === undefined
          ? await this.pool.query<CheckpointRow>(sql.listNsFirst, [threadId, checkpointNs, limit])
          : await this.pool.query<CheckpointRow>(sql.listNsAfter, [threadId, checkpointNs, cursorId, limit])
        : // `before` enters as the cursor (before, ""): no namespace sorts below
          // "", so only ids strictly older than `before` follow it.
          cursorId === undefined
          ? await this.pool.query<CheckpointRow>(sql.listAllFirst, [threadId, limit])
          : await this.pool.query<CheckpointRow>(sql.listAllAfter, [threadId, cursorId, cursorNs, limit]);
    return result.rows;
  }
}

/** The SQL of every query, with the schema filled in once. */
function statements(q: string) {
  // Write values are read back as their JSON text: aggregated as json, a
  // stored `null` and an undefined (SQL NULL) would look the same.
  const columns = `c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, c.metadata,
    (SELECT json_agg(json_build_array(w.task_id, w.channel, w.value::text) ORDER BY w.seq)
       FROM ${q}.checkpoint_writes w
      WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns
        AND w.checkpoint_id = c.checkpoint_id) AS writes`;
  const from = `FROM ${q}.checkpoints c`;
  const newestFirst = "ORDER BY c.checkpoint_id DESC, c.checkpoint_ns DESC";
  return {
    selectLatest: `SELECT ${columns} ${from} WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 ${newestFirst} LIMIT 1`,
    selectById: `SELECT ${columns} ${from}
      WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = $3`,
    listNsFirst: `SELECT ${columns} ${from} WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 ${newestFirst} LIMIT $3`,
    listNsAfter: `SELECT ${columns} ${from}
      WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id < $3
      ${newestFirst} LIMIT $4`,
    listAllFirst: `SELECT ${columns} ${from} WHERE c.thread_id = $1 ${newestFirst} LIMIT $2`,
    listAllAfter: `SELECT ${columns} ${from}
      WHERE c.thread_id = $1
        AND (c.checkpoint_id, c.checkpoint_ns) < ($2, $3)
      ${newestFirst} LIMIT $4`,
    upsertCheckpoint: `INSERT INTO ${q}.checkpoints
        (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
      VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
        parent_checkpoint_id = excluded.parent_checkpoint_id,
        checkpoint = excluded.checkpoint,
        metadata = excluded.metadata`,
    // One statement for all of a task's writes; rows are inserted in index
    // order so the identity column keeps that order. A replaced row keeps its seq.
    upsertWrites: `INSERT INTO ${q}.checkpoint_writes
        (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, idx, value)
      SELECT $1, $2, $3, $4, u.channel, (u.ord - 1)::integer, u.value::json
        FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS u(channel, value, ord)
       ORDER BY u.ord
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, idx) DO UPDATE SET
        value = excluded.value`,
    hasCheckpoint: `SELECT 1 FROM ${q}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
    deleteThread: `DELETE FROM ${q}.checkpoints WHERE thread_id = $1`,
  };
}

function toTuple(threadId: string, row: CheckpointRow): CheckpointTuple {
  const config = { threadId, checkpointNs: row.checkpoint_ns, checkpointId: row.checkpoint_id };
  // `pg` parses json columns with JSON.parse, so every read hands out fresh objects.
  const pendingWrites = (row.writes ?? []).map(
    ([taskId, channel, text]): PendingWrite => [taskId, channel, decodeWriteValue(text)],
  );
  const tuple: CheckpointTuple = { config, checkpoint: row.checkpoint, metadata: row.metadata, pendingWrites };
  if (row.parent_checkpoint_id !== null) {
    tuple.parentConfig = { ...config, checkpointId: row.parent_checkpoint_id };
  }
  return tuple;
}

/** The query under way (or the next one) fails with the cause; the pool drops the broken client on release. */
function ignoreLostConnection(): void {}
