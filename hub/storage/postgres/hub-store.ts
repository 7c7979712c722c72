/**
 * PostgresHubStore: threads and runs in Postgres, shared by every hub node of
 * a deployment. The same rules as the SQLite store (records.ts holds them);
 * read-modify-write updates lock the row (`FOR UPDATE`) inside a transaction,
 * so two nodes updating one run never lose a write.
 */
import type { PoolClient } from "pg";
import {
  applyRunPatch,
  applyThreadPatch,
  checkPage,
  encodeJson,
  HubRecordExistsError,
  monotonicClock,
  newRunRecord,
  newThreadRecord,
  UNFINISHED_RUN_STATUSES,
  zeroRunCounts,
} from "../../runs/records.ts";
import type { ListRunsOptions, ListThreadsOptions, NewRun, NewThread, RunPatch, ThreadPatch } from "../../runs/records.ts";
import type { HubStore, MultitaskStrategy, RunRecord, RunStatus, ThreadRecord, ThreadStatus } from "../../runs/store.ts";
import type { PostgresDatabase } from "./database.ts";

interface ThreadRow {
  thread_id: string;
  tenant: string;
  assistant_id: string | null;
  status: ThreadStatus;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

interface RunRow {
  run_id: string;
  thread_id: string;
  tenant: string;
  assistant_id: string;
  status: RunStatus;
  started_by: string;
  multitask_strategy: MultitaskStrategy;
  input: unknown;
  error: string | null;
  node_id: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

const THREAD_COLUMNS = "thread_id, tenant, assistant_id, status, metadata, created_at, updated_at";
const RUN_COLUMNS =
  "run_id, thread_id, tenant, assistant_id, status, started_by, multitask_strategy, input, error, node_id, created_at, started_at, ended_at";
const NEWEST_FIRST = "ORDER BY created_at DESC, seq DESC";

function fromThreadRow(row: ThreadRow): ThreadRecord {
  return {
    threadId: row.thread_id,
    tenant: row.tenant,
    assistantId: row.assistant_id,
    status: row.status,
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function fromRunRow(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    threadId: row.thread_id,
    tenant: row.tenant,
    assistantId: row.assistant_id,
    status: row.status,
    startedBy: row.started_by,
    multitaskStrategy: row.multitask_strategy,
    input: row.input,
    error: row.error,
    nodeId: row.node_id,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

export class PostgresHubStore implements HubStore {
  readonly #db: PostgresDatabase;
  readonly #now: () => string;
  readonly #t: string;
  readonly #r: string;

  /** A store on an open database, its clock past every time already stored there. */
  static async open(db: PostgresDatabase): Promise<PostgresHubStore> {
    const { rows } = await db.pool.query<{ t: string | null }>(
      `SELECT GREATEST(
         (SELECT max(updated_at) FROM ${db.q}.hub_threads),
         (SELECT max(created_at) FROM ${db.q}.hub_runs),
         (SELECT max(ended_at COLLATE "C") FROM ${db.q}.hub_runs)) AS t`,
    );
    const latest = rows[0]?.t ?? null;
    return new PostgresHubStore(db, monotonicClock(latest === null ? -Infinity : Date.parse(latest)));
  }

  private constructor(db: PostgresDatabase, now: () => string) {
    this.#db = db;
    this.#now = now;
    this.#t = `${db.q}.hub_threads`;
    this.#r = `${db.q}.hub_runs`;
  }

  async createThread(record: NewThread): Promise<ThreadRecord> {
    const t = newThreadRecord(record, this.#now());
    const { rows } = await this.#db.pool.query<ThreadRow>(
      `INSERT INTO ${this.#t} (${THREAD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (thread_id) DO NOTHING RETURNING ${THREAD_COLUMNS}`,
      [t.threadId, t.tenant, t.assistantId, t.status, encodeJson(t.metadata), t.createdAt, t.updatedAt],
    );
    const row = rows[0];
    if (row === undefined) throw new HubRecordExistsError("thread", record.threadId);
    return fromThreadRow(row);
  }

  async getThread(threadId: string, tenant: string): Promise<ThreadRecord | undefined> {
    const { rows } = await this.#db.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM ${this.#t} WHERE thread_id = $1 AND tenant = $2`,
      [threadId, tenant],
    );
    return rows[0] && fromThreadRow(rows[0]);
  }

  async updateThread(threadId: string, patch: ThreadPatch): Promise<ThreadRecord | undefined> {
    return this.#db.transaction(async (c) => {
      const { rows } = await c.query<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM ${this.#t} WHERE thread_id = $1 FOR UPDATE`, [threadId]);
      const row = rows[0];
      if (row === undefined) return undefined;
      const next = applyThreadPatch(fromThreadRow(row), patch, this.#now());
      const updated = await c.query<ThreadRow>(
        `UPDATE ${this.#t} SET assistant_id = $2, status = $3, metadata = $4, updated_at = $5
         WHERE thread_id = $1 RETURNING ${THREAD_COLUMNS}`,
        [threadId, next.assistantId, next.status, encodeJson(next.metadata), next.updatedAt],
      );
      // Decoded from the stored row: the patch's metadata object stays the caller's.
      return fromThreadRow(updated.rows[0]!);
    });
  }

  async listThreads(tenant: string, options: ListThreadsOptions = {}): Promise<ThreadRecord[]> {
    const { status, limit, offset } = options;
    checkPage(limit, offset);
    const params: unknown[] = [tenant, limit ?? null, offset ?? 0];
    const byStatus = status === undefined ? "" : "AND status = $4";
    if (status !== undefined) params.push(status);
    const { rows } = await this.#db.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM ${this.#t} WHERE tenant = $1 ${byStatus} ${NEWEST_FIRST} LIMIT $2 OFFSET $3`,
      params,
    );
    return rows.map(fromThreadRow);
  }

  async listIdleThreads(updatedBefore: string, limit: number): Promise<ThreadRecord[]> {
    checkPage(limit, undefined);
    const { rows } = await this.#db.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM ${this.#t} WHERE status != 'busy' AND updated_at < $1 ORDER BY updated_at, thread_id LIMIT $2`,
      [updatedBefore, limit],
    );
    return rows.map(fromThreadRow);
  }

  async deleteThread(threadId: string, tenant: string): Promise<boolean> {
    return this.#db.transaction(async (c) => {
      const deleted = await c.query(`DELETE FROM ${this.#t} WHERE thread_id = $1 AND tenant = $2`, [threadId, tenant]);
      if (deleted.rowCount === 0) return false;
      // A thread's runs go with it; the hub deletes its checkpoints from the checkpointer.
      await c.query(`DELETE FROM ${this.#r} WHERE thread_id = $1`, [threadId]);
      return true;
    });
  }

  async createRun(record: NewRun): Promise<RunRecord> {
    const r = newRunRecord(record, this.#now());
    const { rows } = await this.#db.pool.query<RunRow>(
      `INSERT INTO ${this.#r} (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (run_id) DO NOTHING RETURNING ${RUN_COLUMNS}`,
      [r.runId, r.threadId, r.tenant, r.assistantId, r.status, r.startedBy, r.multitaskStrategy, encodeJson(r.input), r.error, r.nodeId, r.createdAt, r.startedAt, r.endedAt],
    );
    const row = rows[0];
    if (row === undefined) throw new HubRecordExistsError("run", record.runId);
    return fromRunRow(row);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.#db.pool.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ${this.#r} WHERE run_id = $1`, [runId]);
    return rows[0] && fromRunRow(rows[0]);
  }

  async deleteRun(runId: string): Promise<boolean> {
    const deleted = await this.#db.pool.query(`DELETE FROM ${this.#r} WHERE run_id = $1`, [runId]);
    return (deleted.rowCount ?? 0) > 0;
  }

  async updateRun(runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    return this.#db.transaction((c) => this.#updateRun(c, runId, patch));
  }

  async #updateRun(c: PoolClient, runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    const { rows } = await c.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ${this.#r} WHERE run_id = $1 FOR UPDATE`, [runId]);
    const row = rows[0];
    if (row === undefined) return undefined;
    const next = applyRunPatch(fromRunRow(row), patch, this.#now());
    await c.query(`UPDATE ${this.#r} SET status = $2, error = $3, started_at = $4, ended_at = $5, node_id = $6 WHERE run_id = $1`, [
      runId,
      next.status,
      next.error,
      next.startedAt,
      next.endedAt,
      next.nodeId,
    ]);
    return next;
  }

  async listRuns(threadId: string, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    checkPage(options.limit, undefined);
    const { rows } = await this.#db.pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#r} WHERE thread_id = $1 AND ($2::text IS NULL OR status = $2)
       ${NEWEST_FIRST} LIMIT $3`,
      [threadId, options.status ?? null, options.limit ?? null],
    );
    return rows.map(fromRunRow);
  }

  async listUnfinishedRuns(): Promise<RunRecord[]> {
    const { rows } = await this.#db.pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#r} WHERE status = ANY($1::text[]) ORDER BY created_at, seq`,
      [UNFINISHED_RUN_STATUSES],
    );
    return rows.map(fromRunRow);
  }

  async countRunsByStatus(): Promise<Record<RunStatus, number>> {
    const counts = zeroRunCounts();
    const { rows } = await this.#db.pool.query<{ status: RunStatus; n: string }>(
      `SELECT status, count(*) AS n FROM ${this.#r} GROUP BY status`,
    );
    for (const { status, n } of rows) counts[status] = Number(n);
    return counts;
  }

  /** The database is the caller's (shared by every store of the node): nothing to close here. */
  async close(): Promise<void> {}
}
