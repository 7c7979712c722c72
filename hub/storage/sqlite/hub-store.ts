/**
 * SqliteHubStore: threads and runs in SQLite through better-sqlite3, the
 * hub's default store. It can share one Database with the engine's
 * SqliteSaver, hence the `hub_` table prefix; the tables come from the hub's
 * migrations (migrations.ts). JSON columns are TEXT,
 * timestamps ISO strings (which sort as text); statements are prepared once.
 *
 * Each table has an explicit `seq INTEGER PRIMARY KEY`: it breaks createdAt
 * ties in "newest first", and unlike an implicit rowid VACUUM keeps it. The
 * indexes end in it implicitly, so ordered lists read an index without a sort.
 */
import type Database from "better-sqlite3";
import { requireTables } from "../../../engine/checkpoint/sqlite-open.ts";
import {
  applyRunPatch,
  applyThreadPatch,
  checkPage,
  decodeJson,
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
import { HUB_RECORD_TABLES } from "./migrations.ts";
import { openHubDatabase } from "./open.ts";


interface ThreadRow {
  thread_id: string;
  tenant: string;
  assistant_id: string | null;
  status: ThreadStatus;
  metadata: string;
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
  input: string;
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
/** SQLite reads a negative LIMIT as "no limit". */
const NO_LIMIT = -1;

function toThreadRow(t: ThreadRecord): ThreadRow {
  return {
    thread_id: t.threadId,
    tenant: t.tenant,
    assistant_id: t.assistantId,
    status: t.status,
    metadata: encodeJson(t.metadata),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}

function fromThreadRow(row: ThreadRow): ThreadRecord {
  return {
    threadId: row.thread_id,
    tenant: row.tenant,
    assistantId: row.assistant_id,
    status: row.status,
    metadata: decodeJson(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRunRow(r: RunRecord): RunRow {
  return {
    run_id: r.runId,
    thread_id: r.threadId,
    tenant: r.tenant,
    assistant_id: r.assistantId,
    status: r.status,
    started_by: r.startedBy,
    multitask_strategy: r.multitaskStrategy,
    input: encodeJson(r.input),
    error: r.error,
    node_id: r.nodeId,
    created_at: r.createdAt,
    started_at: r.startedAt,
    ended_at: r.endedAt,
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
    input: decodeJson(row.input),
    error: row.error,
    nodeId: row.node_id,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

type Page = { limit: number; offset: number };

/** Every statement the store runs, prepared once per store. */
function prepareStatements(db: Database.Database) {
  return {
    insertThread: db.prepare<ThreadRow>(
      `INSERT INTO hub_threads (${THREAD_COLUMNS})
       VALUES (@thread_id, @tenant, @assistant_id, @status, @metadata, @created_at, @updated_at)
       ON CONFLICT (thread_id) DO NOTHING`,
    ),
    selectThread: db.prepare<[string], ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM hub_threads WHERE thread_id = ?`),
    updateThread: db.prepare<ThreadRow>(
      `UPDATE hub_threads SET assistant_id = @assistant_id, status = @status, metadata = @metadata,
         updated_at = @updated_at
       WHERE thread_id = @thread_id`,
    ),
    // With and without status are separate statements: an "IS NULL OR" filter
    // would keep SQLite from using the (tenant, status, created_at) index.
    listThreads: db.prepare<{ tenant: string } & Page, ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM hub_threads WHERE tenant = @tenant
       ${NEWEST_FIRST} LIMIT @limit OFFSET @offset`,
    ),
    listThreadsByStatus: db.prepare<{ tenant: string; status: ThreadStatus } & Page, ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM hub_threads WHERE tenant = @tenant AND status = @status
       ${NEWEST_FIRST} LIMIT @limit OFFSET @offset`,
    ),
    deleteThread: db.prepare<[string, string]>("DELETE FROM hub_threads WHERE thread_id = ? AND tenant = ?"),
    listIdleThreads: db.prepare<[string, number], ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM hub_threads WHERE status != 'busy' AND updated_at < ? ORDER BY updated_at, thread_id LIMIT ?`,
    ),
    deleteThreadRuns: db.prepare<[string]>("DELETE FROM hub_runs WHERE thread_id = ?"),
    deleteRun: db.prepare<[string]>("DELETE FROM hub_runs WHERE run_id = ?"),

    insertRun: db.prepare<RunRow>(
      `INSERT INTO hub_runs (${RUN_COLUMNS})
       VALUES (@run_id, @thread_id, @tenant, @assistant_id, @status, @started_by, @multitask_strategy,
         @input, @error, @node_id, @created_at, @started_at, @ended_at)
       ON CONFLICT (run_id) DO NOTHING`,
    ),
    selectRun: db.prepare<[string], RunRow>(`SELECT ${RUN_COLUMNS} FROM hub_runs WHERE run_id = ?`),
    updateRun: db.prepare<RunRow>(
      `UPDATE hub_runs SET status = @status, error = @error, started_at = @started_at, ended_at = @ended_at, node_id = @node_id
       WHERE run_id = @run_id`,
    ),
    // A status filter on top of the thread index: a thread has few runs.
    listRuns: db.prepare<{ threadId: string; status: RunStatus | null; limit: number }, RunRow>(
      `SELECT ${RUN_COLUMNS} FROM hub_runs
       WHERE thread_id = @threadId AND (@status IS NULL OR status = @status)
       ${NEWEST_FIRST} LIMIT @limit`,
    ),
    listUnfinishedRuns: db.prepare<[], RunRow>(
      `SELECT ${RUN_COLUMNS} FROM hub_runs
       WHERE status IN (${UNFINISHED_RUN_STATUSES.map((s) => `'${s}'`).join(", ")})
       ORDER BY created_at, seq`,
    ),
    countRunsByStatus: db.prepare<[], { status: RunStatus; n: number }>(
      "SELECT status, COUNT(*) AS n FROM hub_runs GROUP BY status",
    ),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

export class SqliteHubStore implements HubStore {
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #sql: Statements;
  readonly #now: () => string;

  readonly #updateThread: (threadId: string, patch: ThreadPatch) => ThreadRecord | undefined;
  readonly #deleteThread: (threadId: string, tenant: string) => boolean;
  readonly #updateRun: (runId: string, patch: RunPatch) => RunRecord | undefined;

  /**
   * Opens (creating and migrating if needed) the hub's SQLite file at a path,
   * or adopts an open Database (openStorage's, shared with the engine's
   * SqliteSaver), which close() then leaves open.
   */
  constructor(pathOrDb: string | Database.Database) {
    this.#ownsDb = typeof pathOrDb === "string";
    this.db = typeof pathOrDb === "string" ? openHubDatabase(pathOrDb) : pathOrDb;
    const db = this.db;
    if (!this.#ownsDb) requireTables(db, "SqliteHubStore", HUB_RECORD_TABLES);
    const sql = (this.#sql = prepareStatements(db));
    // Past every time already stamped here (ISO strings sort as text): see monotonicClock.
    const latest = db
      .prepare<[], { t: string | null }>(
        `SELECT MAX(t) AS t FROM (
           SELECT MAX(created_at) AS t FROM hub_threads UNION ALL SELECT MAX(updated_at) FROM hub_threads
           UNION ALL SELECT MAX(created_at) FROM hub_runs UNION ALL SELECT MAX(started_at) FROM hub_runs UNION ALL SELECT MAX(ended_at) FROM hub_runs)`,
      )
      .get()?.t;
    this.#now = monotonicClock(latest ? Date.parse(latest) : -Infinity);

    // Read-modify-write in one transaction, so the transition rules live in
    // shared.ts (one copy for every backend) and no concurrent write is lost.
    this.#updateThread = db.transaction((threadId: string, patch: ThreadPatch) => {
      const row = sql.selectThread.get(threadId);
      if (row === undefined) return undefined;
      const next = toThreadRow(applyThreadPatch(fromThreadRow(row), patch, this.#now()));
      sql.updateThread.run(next);
      // Decoded from the new row: the patch's metadata object stays the caller's.
      return fromThreadRow(next);
    });
    this.#deleteThread = db.transaction((threadId: string, tenant: string) => {
      if (sql.deleteThread.run(threadId, tenant).changes === 0) return false;
      // A thread's runs go with it; the hub deletes its checkpoints from the checkpointer.
      sql.deleteThreadRuns.run(threadId);
      return true;
    });
    this.#updateRun = db.transaction((runId: string, patch: RunPatch) => {
      const row = sql.selectRun.get(runId);
      if (row === undefined) return undefined;
      const next = applyRunPatch(fromRunRow(row), patch, this.#now());
      sql.updateRun.run(toRunRow(next));
      return next;
    });
  }

  async createThread(record: NewThread): Promise<ThreadRecord> {
    const row = toThreadRow(newThreadRecord(record, this.#now()));
    if (this.#sql.insertThread.run(row).changes === 0) throw new HubRecordExistsError("thread", record.threadId);
    // Decoded from the row, so the caller gets a copy with the stored JSON semantics.
    return fromThreadRow(row);
  }

  async getThread(threadId: string, tenant: string): Promise<ThreadRecord | undefined> {
    const row = this.#sql.selectThread.get(threadId);
    return row && row.tenant === tenant ? fromThreadRow(row) : undefined;
  }

  async updateThread(threadId: string, patch: ThreadPatch): Promise<ThreadRecord | undefined> {
    return this.#updateThread(threadId, patch);
  }

  async listThreads(tenant: string, options: ListThreadsOptions = {}): Promise<ThreadRecord[]> {
    const { status, limit, offset } = options;
    checkPage(limit, offset);
    const paging = { limit: limit ?? NO_LIMIT, offset: offset ?? 0 };
    const rows =
      status === undefined
        ? this.#sql.listThreads.all({ tenant, ...paging })
        : this.#sql.listThreadsByStatus.all({ tenant, status, ...paging });
    return rows.map(fromThreadRow);
  }

  async listIdleThreads(updatedBefore: string, limit: number): Promise<ThreadRecord[]> {
    checkPage(limit, undefined);
    return this.#sql.listIdleThreads.all(updatedBefore, limit).map(fromThreadRow);
  }

  async deleteThread(threadId: string, tenant: string): Promise<boolean> {
    return this.#deleteThread(threadId, tenant);
  }

  async deleteRun(runId: string): Promise<boolean> {
    return this.#sql.deleteRun.run(runId).changes > 0;
  }

  async createRun(record: NewRun): Promise<RunRecord> {
    const row = toRunRow(newRunRecord(record, this.#now()));
    if (this.#sql.insertRun.run(row).changes === 0) throw new HubRecordExistsError("run", record.runId);
    return fromRunRow(row);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const row = this.#sql.selectRun.get(runId);
    return row && fromRunRow(row);
  }

  async updateRun(runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    return this.#updateRun(runId, patch);
  }

  async listRuns(threadId: string, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    checkPage(options.limit, undefined);
    const rows = this.#sql.listRuns.all({ threadId, status: options.status ?? null, limit: options.limit ?? NO_LIMIT });
    return rows.map(fromRunRow);
  }

  async listUnfinishedRuns(): Promise<RunRecord[]> {
    return this.#sql.listUnfinishedRuns.all().map(fromRunRow);
  }

  async countRunsByStatus(): Promise<Record<RunStatus, number>> {
    const counts = zeroRunCounts();
    for (const { status, n } of this.#sql.countRunsByStatus.all()) counts[status] = n;
    return counts;
  }

  /** Closes the database if this store opened it. */
  async close(): Promise<void> {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
