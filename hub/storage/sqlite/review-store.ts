/**
 * SqliteReviewStore: review items and their audit trail in the hub's SQLite
 * file (tables `hub_review_items`, `hub_review_audit`). Every decision runs
 * in one IMMEDIATE transaction (the write lock is taken before the read, so
 * another connection or process cannot decide in between) and writes with a
 * conditional UPDATE on the row's version — for answers also on
 * `status IN ('open','claimed')` — so the database, not JS scheduling,
 * decides which answer wins.
 */
import type Database from "better-sqlite3";
import { requireTables } from "../../../engine/checkpoint/sqlite-open.ts";
import type { Principal } from "../../auth/index.ts";
import { ALL_AUDIT, DEFAULT_CANCEL_REASON } from "../../review/store.ts";
import type { AnswerResult, AuditPage, ReviewStore } from "../../review/store.ts";
import {
  batchesOf,
  cancelItem,
  decideAnswer,
  decideClaim,
  decideReassign,
  decideRelease,
  decodeJson,
  editsState,
  reraiseItem,
  reviseOnEdit,
  encodeJson,
  expireItem,
  lapseClaim,
  newItem,
  planResume,
  coalesceRejection,
} from "../../review/transitions.ts";
import type { Transition } from "../../review/transitions.ts";
import { withSource, type AuditExportFilter, type AuditRecord } from "../../review/audit-export.ts";
import { readWorkflow, workflowOf } from "../../review/quorum.ts";
import { fireDue, readTimers, timersOf } from "../../review/timers.ts";
import type { AnswerExpectations, ReassignTarget } from "../../review/types.ts";
import { REVIEW_TABLES } from "./migrations.ts";
import { openHubDatabase } from "./open.ts";
import type { AuditEntry, Decision, ExpiredItem, FiredTimers, LapsedClaim, ListItemsFilter, NewReviewItem, ResumeBatch, ResumeEdits, ResumePolicy, ReviewItem, ReviewStatus } from "../../review/types.ts";


interface ItemRow {
  interrupt_id: string;
  thread_id: string;
  run_id: string;
  tenant: string;
  queue: string;
  status: ReviewStatus;
  namespace: string;
  node: string | null;
  payload: string;
  routing: string;
  started_by: string;
  created_at: string;
  expires_at: string | null;
  claim_sub: string | null;
  claim_name: string | null;
  claim_until: string | null;
  answer_value: string | null;
  answered_sub: string | null;
  answered_name: string | null;
  answered_at: string | null;
  resumed_at: string | null;
  version: number;
  answer_edits: string | null;
  resume_run_id: string | null;
  applied_at: string | null;
  workflow_json: string | null;
  action_json: string | null;
  timers_json: string | null;
  next_timer_at: string | null;
}

interface AuditRow {
  interrupt_id: string;
  at: string;
  kind: AuditEntry["kind"];
  by_sub: string | null;
  by_name: string | null;
  reason: string | null;
  detail: string | null;
  source: string | null;
}

const ITEM_COLUMNS =
  "interrupt_id, thread_id, run_id, tenant, queue, status, namespace, node, payload, routing, started_by, created_at, expires_at, " +
  "claim_sub, claim_name, claim_until, answer_value, answered_sub, answered_name, answered_at, resumed_at, version, " +
  "answer_edits, resume_run_id, applied_at, workflow_json, action_json, timers_json, next_timer_at";

/** Items whose timers one fireDueTimers call handles at most (the rest are due at once, in the next call). */
const TIMER_BATCH = 500;

const PENDING = "status IN ('open', 'claimed')";

function toItemRow(item: ReviewItem, version: number): ItemRow {
  return {
    interrupt_id: item.interruptId,
    thread_id: item.threadId,
    run_id: item.runId,
    tenant: item.tenant,
    queue: item.routing.queue,
    status: item.status,
    namespace: encodeJson(item.namespace),
    node: item.node,
    payload: encodeJson(item.payload),
    routing: encodeJson(item.routing),
    started_by: item.startedBy,
    created_at: item.createdAt,
    expires_at: item.expiresAt,
    claim_sub: item.claim?.by.sub ?? null,
    claim_name: item.claim?.by.name ?? null,
    claim_until: item.claim?.until ?? null,
    answer_value: item.answer === null ? null : encodeJson(item.answer.value),
    answered_sub: item.answer?.by.sub ?? null,
    answered_name: item.answer?.by.name ?? null,
    answered_at: item.answer?.at ?? null,
    resumed_at: item.resumedAt,
    version,
    answer_edits: item.answer?.edits === undefined ? null : encodeJson(item.answer.edits),
    resume_run_id: item.resumeRunId,
    applied_at: item.appliedAt,
    workflow_json: encodeJson(workflowOf(item)),
    action_json: item.action === undefined ? null : encodeJson(item.action),
    timers_json: encodeJson(timersOf(item)),
    next_timer_at: item.nextTimerAt,
  };
}

function fromItemRow(row: ItemRow): ReviewItem {
  const payload = decodeJson(row.payload);
  return {
    interruptId: row.interrupt_id,
    threadId: row.thread_id,
    runId: row.run_id,
    tenant: row.tenant,
    namespace: decodeJson(row.namespace) as string[],
    node: row.node,
    payload,
    routing: decodeJson(row.routing) as ReviewItem["routing"],
    status: row.status,
    claim:
      row.claim_sub === null || row.claim_until === null
        ? null
        : { by: { sub: row.claim_sub, name: row.claim_name ?? "" }, until: row.claim_until },
    answer:
      row.answered_at === null || row.answered_sub === null
        ? null
        : {
            value: decodeJson(row.answer_value ?? "null"),
            by: { sub: row.answered_sub, name: row.answered_name ?? "" },
            at: row.answered_at,
            ...(row.answer_edits === null ? {} : { edits: decodeJson(row.answer_edits) as ResumeEdits }),
          },
    startedBy: row.started_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    resumedAt: row.resumed_at,
    resumeRunId: row.resume_run_id,
    appliedAt: row.applied_at,
    ...readWorkflow(row.workflow_json === null ? null : decodeJson(row.workflow_json), payload),
    ...(row.action_json === null ? {} : { action: decodeJson(row.action_json) as NonNullable<ReviewItem["action"]> }),
    ...readTimers(row.timers_json === null ? null : decodeJson(row.timers_json)),
    nextTimerAt: row.next_timer_at,
  };
}

function toAuditRow(entry: AuditEntry): AuditRow {
  return {
    interrupt_id: entry.interruptId,
    at: entry.at,
    kind: entry.kind,
    by_sub: entry.by?.sub ?? null,
    by_name: entry.by?.name ?? null,
    reason: entry.reason ?? null,
    detail: entry.detail === undefined ? null : encodeJson(entry.detail),
    source: entry.source === undefined ? null : encodeJson(entry.source),
  };
}

function fromAuditRow(row: AuditRow): AuditEntry {
  const entry: AuditEntry = { interruptId: row.interrupt_id, at: row.at, kind: row.kind };
  if (row.by_sub !== null) entry.by = { sub: row.by_sub, name: row.by_name ?? "" };
  if (row.reason !== null) entry.reason = row.reason;
  if (row.detail !== null) entry.detail = decodeJson(row.detail);
  if (row.source !== null) entry.source = decodeJson(row.source) as NonNullable<AuditEntry["source"]>;
  return entry;
}

type ExportRow = AuditRow & { seq: number; tenant: string; thread_id: string; run_id: string; queue: string };
type ExportParams = { tenant: string; after: number; from: string | null; to: string | null; thread: string | null; queue: string | null; person: string | null; limit: number };

/** The export's page query (audit-export.ts), prepared apart from the decisions'. */
function prepareExport(db: Database.Database) {
  return db.prepare<ExportParams, ExportRow>(
    `SELECT a.seq, a.interrupt_id, a.at, a.kind, a.by_sub, a.by_name, a.reason, a.detail, a.source, i.tenant, i.thread_id, i.run_id, i.queue
     FROM hub_review_audit a JOIN hub_review_items i ON i.interrupt_id = a.interrupt_id
     WHERE i.tenant = @tenant AND a.seq > @after AND (@from IS NULL OR a.at >= @from) AND (@to IS NULL OR a.at < @to)
       AND (@thread IS NULL OR i.thread_id = @thread) AND (@queue IS NULL OR i.queue = @queue) AND (@person IS NULL OR a.by_sub = @person)
     ORDER BY a.seq LIMIT @limit`,
  );
}

type ListParams = { tenant: string; queue: string | null; statuses: string | null; threadId: string | null; runId: string | null };

function prepareStatements(db: Database.Database) {
  const select = `SELECT ${ITEM_COLUMNS} FROM hub_review_items`;
  const writable = `status = @status, claim_sub = @claim_sub, claim_name = @claim_name, claim_until = @claim_until,
    answer_value = @answer_value, answered_sub = @answered_sub, answered_name = @answered_name,
    answered_at = @answered_at, resumed_at = @resumed_at, answer_edits = @answer_edits, resume_run_id = @resume_run_id,
    applied_at = @applied_at, queue = @queue, payload = @payload, routing = @routing, workflow_json = @workflow_json,
    timers_json = @timers_json, next_timer_at = @next_timer_at, version = version + 1`;
  return {
    insertItem: db.prepare<ItemRow>(
      `INSERT INTO hub_review_items (${ITEM_COLUMNS}) VALUES (@interrupt_id, @thread_id, @run_id, @tenant, @queue,
         @status, @namespace, @node, @payload, @routing, @started_by, @created_at, @expires_at, @claim_sub, @claim_name,
         @claim_until, @answer_value, @answered_sub, @answered_name, @answered_at, @resumed_at, @version,
         @answer_edits, @resume_run_id, @applied_at, @workflow_json, @action_json, @timers_json, @next_timer_at)
       ON CONFLICT (interrupt_id) DO NOTHING`,
    ),
    selectItem: db.prepare<[string], ItemRow>(`${select} WHERE interrupt_id = ?`),
    listItems: db.prepare<ListParams, ItemRow>(
      `${select} WHERE tenant = @tenant AND (@queue IS NULL OR queue = @queue)
         AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
         AND (@threadId IS NULL OR thread_id = @threadId) AND (@runId IS NULL OR run_id = @runId)
       ORDER BY created_at, seq`,
    ),
    // Compare-and-set on the version read in the same transaction.
    updateItem: db.prepare<ItemRow>(`UPDATE hub_review_items SET ${writable} WHERE interrupt_id = @interrupt_id AND version = @version`),
    // The winning answer: only a still-pending row can take one.
    answerItem: db.prepare<ItemRow>(
      `UPDATE hub_review_items SET ${writable} WHERE interrupt_id = @interrupt_id AND version = @version AND ${PENDING}`,
    ),
    lapsedClaims: db.prepare<[string], ItemRow>(`${select} WHERE status = 'claimed' AND claim_until <= ? ORDER BY seq`),
    dueItems: db.prepare<[string], ItemRow>(`${select} WHERE ${PENDING} AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY seq`),
    dueTimers: db.prepare<[string, number], ItemRow>(
      `${select} WHERE ${PENDING} AND next_timer_at IS NOT NULL AND next_timer_at <= ? ORDER BY next_timer_at, seq LIMIT ?`,
    ),
    pendingOfRun: db.prepare<[string], ItemRow>(`${select} WHERE run_id = ? AND ${PENDING} ORDER BY seq`),
    pendingOfThread: db.prepare<[string], ItemRow>(`${select} WHERE thread_id = ? AND ${PENDING} ORDER BY seq`),
    deleteAuditOfThread: db.prepare<[string]>("DELETE FROM hub_review_audit WHERE interrupt_id IN (SELECT interrupt_id FROM hub_review_items WHERE thread_id = ?)"),
    deleteItemsOfThread: db.prepare<[string]>("DELETE FROM hub_review_items WHERE thread_id = ?"),
    itemsOfRun: db.prepare<[string], ItemRow>(`${select} WHERE run_id = ? ORDER BY seq`),
    unapplied: db.prepare<[], ItemRow>(`${select} WHERE resume_run_id IS NOT NULL AND applied_at IS NULL ORDER BY seq`),
    markApplied: db.prepare<[string, string]>(
      "UPDATE hub_review_items SET applied_at = ?, version = version + 1 WHERE resume_run_id = ? AND applied_at IS NULL",
    ),
    nextDeadline: db.prepare<[], { at: string | null }>(
      `SELECT MIN(at) AS at FROM (
         SELECT MIN(next_timer_at) AS at FROM hub_review_items WHERE ${PENDING} AND next_timer_at IS NOT NULL
         UNION ALL SELECT MIN(claim_until) FROM hub_review_items WHERE status = 'claimed')`,
    ),
    insertAudit: db.prepare<AuditRow>(
      `INSERT INTO hub_review_audit (interrupt_id, at, kind, by_sub, by_name, reason, detail, source)
       VALUES (@interrupt_id, @at, @kind, @by_sub, @by_name, @reason, @detail, @source)`,
    ),
    selectAudit: db.prepare<[string, number, number], AuditRow>(
      "SELECT interrupt_id, at, kind, by_sub, by_name, reason, detail, source FROM hub_review_audit WHERE interrupt_id = ? ORDER BY seq LIMIT ? OFFSET ?",
    ),
    lastAudit: db.prepare<[string], AuditRow & { seq: number }>(
      "SELECT seq, interrupt_id, at, kind, by_sub, by_name, reason, detail, source FROM hub_review_audit WHERE interrupt_id = ? ORDER BY seq DESC LIMIT 1",
    ),
    updateAuditDetail: db.prepare<[string, number]>("UPDATE hub_review_audit SET detail = ? WHERE seq = ?"),
  };
}

type Statements = ReturnType<typeof prepareStatements>;
type Step<T> = (item: ReviewItem) => { next: ReviewItem; audit: AuditEntry[]; out: T } | undefined;

/** A conditional UPDATE matched no row inside the write lock: a bug, never a race to report. */
class ReviewWriteConflict extends Error {
  override readonly name = "ReviewWriteConflict";
}

export class SqliteReviewStore implements ReviewStore {
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #sql: Statements;
  readonly #export: ReturnType<typeof prepareExport>;
  readonly #immediate: Database.Transaction<(fn: () => unknown) => unknown>;

  /**
   * Opens (creating and migrating if needed) the hub's SQLite file at a path,
   * or adopts an open Database that has the review tables, which close() then
   * leaves open. Another connection's write lock is waited for (busy_timeout),
   * not failed on.
   */
  constructor(pathOrDb: string | Database.Database) {
    this.#ownsDb = typeof pathOrDb === "string";
    this.db = typeof pathOrDb === "string" ? openHubDatabase(pathOrDb) : pathOrDb;
    if (!this.#ownsDb) requireTables(this.db, "SqliteReviewStore", REVIEW_TABLES);
    this.#sql = prepareStatements(this.db);
    this.#export = prepareExport(this.db);
    this.#immediate = this.db.transaction((fn: () => unknown) => fn());
  }

  /** Runs `fn` in one IMMEDIATE transaction: the write lock is held from the first read. */
  #atomic<T>(fn: () => T): T {
    return this.#immediate.immediate(fn) as T;
  }

  #append(entries: readonly AuditEntry[]): void {
    for (const entry of entries) {
      const last = entry.kind === "rejected" ? this.#sql.lastAudit.get(entry.interruptId) : undefined;
      const merged = coalesceRejection(last && fromAuditRow(last), entry);
      if (last && merged) this.#sql.updateAuditDetail.run(encodeJson(merged.detail), last.seq);
      else this.#sql.insertAudit.run(toAuditRow(entry));
    }
  }

  #write(next: ReviewItem, version: number, winningAnswer = false): void {
    const statement = winningAnswer ? this.#sql.answerItem : this.#sql.updateItem;
    if (statement.run(toItemRow(next, version)).changes !== 1) {
      throw new ReviewWriteConflict(`review item ${next.interruptId} changed under the write lock`);
    }
  }

  #decide(interruptId: string, decide: (item: ReviewItem | undefined) => Transition, winningAnswer = false): Transition["result"] {
    return this.#atomic(() => this.#decideLocked(interruptId, decide, winningAnswer));
  }

  /** One decision; the caller holds the write lock. */
  #decideLocked(interruptId: string, decide: (item: ReviewItem | undefined) => Transition, winningAnswer: boolean): Transition["result"] {
    const row = this.#sql.selectItem.get(interruptId);
    const { result, next, audit } = decide(row && fromItemRow(row));
    if (next !== undefined && row !== undefined) this.#write(next, row.version, winningAnswer);
    this.#append(audit);
    return result;
  }

  /** Reads rows and applies `step` to each, in one transaction; returns what the changed ones yield. */
  #sweep<T>(read: () => ItemRow[], step: Step<T>): T[] {
    return this.#atomic(() => {
      const out: T[] = [];
      for (const row of read()) {
        const done = step(fromItemRow(row));
        if (done === undefined) continue;
        this.#write(done.next, row.version);
        this.#append(done.audit);
        out.push(done.out);
      }
      return out;
    });
  }

  async createItem(input: NewReviewItem, now: number): Promise<{ item: ReviewItem; created: boolean; revised?: boolean }> {
    return this.#atomic(() => {
      const existing = this.#sql.selectItem.get(input.interruptId);
      if (existing !== undefined) {
        const reraised = reraiseItem(fromItemRow(existing), input, now);
        if (reraised === undefined) return { item: fromItemRow(existing), created: false };
        this.#write(reraised.next, existing.version);
        this.#append(reraised.audit);
        return { item: fromItemRow(this.#sql.selectItem.get(input.interruptId) ?? existing), created: false, revised: true };
      }
      const { item, audit } = newItem(input, now);
      this.#sql.insertItem.run(toItemRow(item, 0));
      this.#append(audit);
      // Decoded from storage, so the caller gets the stored JSON semantics.
      const stored = this.#sql.selectItem.get(input.interruptId);
      return { item: stored === undefined ? item : fromItemRow(stored), created: true };
    });
  }

  async getItem(interruptId: string): Promise<ReviewItem | undefined> {
    const row = this.#sql.selectItem.get(interruptId);
    return row && fromItemRow(row);
  }

  async listItems(filter: ListItemsFilter): Promise<ReviewItem[]> {
    const statuses = filter.status === undefined ? null : JSON.stringify(typeof filter.status === "string" ? [filter.status] : filter.status);
    return this.#sql.listItems
      .all({ tenant: filter.tenant, queue: filter.queue ?? null, statuses, threadId: filter.threadId ?? null, runId: filter.runId ?? null })
      .map(fromItemRow);
  }

  async answer(interruptId: string, principal: Principal, value: unknown, now: number, edits?: ResumeEdits, expect?: AnswerExpectations): Promise<AnswerResult> {
    const decide = (item: ReviewItem | undefined) => withSource(decideAnswer(item, interruptId, principal, value, now, edits, expect), principal);
    if (!editsState(edits)) return this.#decide(interruptId, decide, true);
    // The answer and the revision of the thread's other pending items: one transaction.
    return this.#atomic(() => {
      const result = this.#decideLocked(interruptId, decide, true);
      if (!result.ok) return result;
      const revised: ReviewItem[] = [];
      for (const row of this.#sql.pendingOfThread.all(result.item.threadId)) {
        if (row.interrupt_id === interruptId) continue;
        const done = reviseOnEdit(fromItemRow(row), now, "state_updated");
        if (done === undefined) continue;
        this.#write(done.next, row.version);
        this.#append(done.audit);
        revised.push(done.next);
      }
      return revised.length === 0 ? result : { ...result, revised };
    });
  }

  async reassign(interruptId: string, principal: Principal, target: ReassignTarget, now: number): Promise<Decision> {
    return this.#decide(interruptId, (item) => withSource(decideReassign(item, interruptId, principal, target, now), principal));
  }

  async reviseForThread(threadId: string, now: number, reason: string): Promise<ReviewItem[]> {
    return this.#sweep(
      () => this.#sql.pendingOfThread.all(threadId),
      (item) => {
        const done = reviseOnEdit(item, now, reason);
        return done && { ...done, out: done.next };
      },
    );
  }

  async claim(interruptId: string, principal: Principal, ttlMs: number, now: number): Promise<Decision> {
    return this.#decide(interruptId, (item) => withSource(decideClaim(item, interruptId, principal, ttlMs, now), principal));
  }

  async release(interruptId: string, principal: Principal, now: number): Promise<Decision> {
    return this.#decide(interruptId, (item) => withSource(decideRelease(item, interruptId, principal, now), principal));
  }

  async expireClaims(now: number): Promise<LapsedClaim[]> {
    return this.#sweep(
      () => this.#sql.lapsedClaims.all(new Date(now).toISOString()),
      (item) => {
        const done = lapseClaim(item, now);
        return done && { next: done.lapsed.item, audit: done.audit, out: done.lapsed };
      },
    );
  }

  async expireDue(now: number): Promise<ExpiredItem[]> {
    return this.#sweep(
      () => this.#sql.dueItems.all(new Date(now).toISOString()),
      (item) => {
        const done = expireItem(item, now);
        return done && { next: done.expired.item, audit: done.audit, out: done.expired };
      },
    );
  }

  /** Every due timer in one IMMEDIATE transaction: another connection (node, process) finds the steps advanced. */
  async fireDueTimers(now: number): Promise<FiredTimers[]> {
    const fired = this.#sweep(
      () => this.#sql.dueTimers.all(new Date(now).toISOString(), TIMER_BATCH),
      (before) => {
        const done = fireDue(before, now);
        return done && { next: done.next, audit: done.audit, out: { before, item: done.next, fired: done.fired } };
      },
    );
    return fired.filter((f) => f.fired.length > 0);
  }

  async cancelForRun(runId: string, now: number, reason = DEFAULT_CANCEL_REASON): Promise<ReviewItem[]> {
    return this.#sweep(
      () => this.#sql.pendingOfRun.all(runId),
      (item) => {
        const done = cancelItem(item, now, reason);
        return done && { ...done, out: done.next };
      },
    );
  }

  async cancelForThread(threadId: string, now: number, reason = DEFAULT_CANCEL_REASON): Promise<ReviewItem[]> {
    return this.#sweep(
      () => this.#sql.pendingOfThread.all(threadId),
      (item) => {
        const done = cancelItem(item, now, reason);
        return done && { ...done, out: done.next };
      },
    );
  }

  async deleteForThread(threadId: string): Promise<number> {
    return this.#immediate(() => {
      this.#sql.deleteAuditOfThread.run(threadId);
      return this.#sql.deleteItemsOfThread.run(threadId).changes;
    }) as number;
  }

  async unappliedResumes(): Promise<ResumeBatch[]> {
    return batchesOf(this.#sql.unapplied.all().map(fromItemRow));
  }

  async markApplied(resumeRunId: string, now: number): Promise<void> {
    this.#sql.markApplied.run(new Date(now).toISOString(), resumeRunId);
  }

  async takeResume(runId: string, policy: ResumePolicy, now: number, resumeRunId: string): Promise<ResumeBatch | null> {
    return this.#atomic(() => {
      const rows = this.#sql.itemsOfRun.all(runId);
      const plan = planResume(rows.map(fromItemRow), policy, now, resumeRunId);
      if (plan === undefined) return null;
      const versions = new Map(rows.map((r) => [r.interrupt_id, r.version]));
      for (const next of plan.next) this.#write(next, versions.get(next.interruptId) ?? -1);
      return plan.batch;
    });
  }

  async nextDeadline(): Promise<string | null> {
    return this.#sql.nextDeadline.get()?.at ?? null;
  }

  async exportAudit(f: AuditExportFilter): Promise<AuditRecord[]> {
    const rows = this.#export.all({ tenant: f.tenant, after: f.after, from: f.from ?? null, to: f.to ?? null, thread: f.threadId ?? null, queue: f.queue ?? null, person: f.person ?? null, limit: f.limit });
    return rows.map((row) => ({ ...fromAuditRow(row), seq: row.seq, tenant: row.tenant, threadId: row.thread_id, runId: row.run_id, queue: row.queue }));
  }

  async auditOf(interruptId: string, page: AuditPage = ALL_AUDIT): Promise<AuditEntry[]> {
    return this.#sql.selectAudit.all(interruptId, page.limit, page.offset).map(fromAuditRow);
  }

  /** Closes the database if this store opened it. */
  async close(): Promise<void> {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
