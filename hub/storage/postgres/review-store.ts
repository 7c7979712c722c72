/**
 * PostgresReviewStore: review items and their audit trail in Postgres, shared
 * by every hub node. Every decision runs in one transaction that locks the
 * rows it reads (`SELECT … FOR UPDATE`), applies the pure transition of
 * review/transitions.ts and writes; the winning answer's UPDATE is also
 * conditional on the item still pending. So across all nodes the database, not
 * JS scheduling, decides which answer wins.
 */
import type { PoolClient } from "pg";
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
  editsState,
  encodeJson,
  reraiseItem,
  reviseOnEdit,
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
import type { AuditEntry, Decision, ExpiredItem, FiredTimers, LapsedClaim, ListItemsFilter, NewReviewItem, ResumeBatch, ResumeEdits, ResumePolicy, ReviewItem, ReviewStatus } from "../../review/types.ts";
import type { PostgresDatabase } from "./database.ts";

interface ItemRow {
  interrupt_id: string;
  thread_id: string;
  run_id: string;
  tenant: string;
  queue: string;
  status: ReviewStatus;
  namespace: string[];
  node: string | null;
  payload: unknown;
  routing: ReviewItem["routing"];
  started_by: string;
  created_at: string;
  expires_at: string | null;
  claim_sub: string | null;
  claim_name: string | null;
  claim_until: string | null;
  answer_value: unknown;
  answered_sub: string | null;
  answered_name: string | null;
  answered_at: string | null;
  resumed_at: string | null;
  answer_edits: ResumeEdits | null;
  resume_run_id: string | null;
  applied_at: string | null;
  workflow_json: unknown;
  action_json: ReviewItem["action"] | null;
  timers_json: unknown;
  next_timer_at: string | null;
}

interface AuditRow {
  interrupt_id: string;
  at: string;
  kind: AuditEntry["kind"];
  by_sub: string | null;
  by_name: string | null;
  reason: string | null;
  detail: unknown;
  source: AuditEntry["source"] | null;
}

const ITEM_COLUMNS =
  "interrupt_id, thread_id, run_id, tenant, queue, status, namespace, node, payload, routing, started_by, created_at, expires_at, " +
  "claim_sub, claim_name, claim_until, answer_value, answered_sub, answered_name, answered_at, resumed_at, " +
  "answer_edits, resume_run_id, applied_at, workflow_json, action_json, timers_json, next_timer_at";

/** Items whose timers one fireDueTimers call handles at most (the rest are due at once, in the next call). */
const TIMER_BATCH = 500;
const PENDING = "status IN ('open', 'claimed')";

function fromItemRow(row: ItemRow): ReviewItem {
  return {
    interruptId: row.interrupt_id,
    threadId: row.thread_id,
    runId: row.run_id,
    tenant: row.tenant,
    namespace: row.namespace,
    node: row.node,
    payload: row.payload,
    routing: row.routing,
    status: row.status,
    claim:
      row.claim_sub === null || row.claim_until === null
        ? null
        : { by: { sub: row.claim_sub, name: row.claim_name ?? "" }, until: row.claim_until },
    answer:
      row.answered_at === null || row.answered_sub === null
        ? null
        : {
            value: row.answer_value ?? null,
            by: { sub: row.answered_sub, name: row.answered_name ?? "" },
            at: row.answered_at,
            ...(row.answer_edits === null ? {} : { edits: row.answer_edits }),
          },
    startedBy: row.started_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    resumedAt: row.resumed_at,
    resumeRunId: row.resume_run_id,
    appliedAt: row.applied_at,
    ...readWorkflow(row.workflow_json, row.payload),
    ...(row.action_json === null ? {} : { action: row.action_json }),
    ...readTimers(row.timers_json),
    nextTimerAt: row.next_timer_at,
  };
}

/** The writable columns of an item, in the order of WRITE_SET's parameters $2…$19. */
function writable(item: ReviewItem): unknown[] {
  return [
    item.status,
    item.claim?.by.sub ?? null,
    item.claim?.by.name ?? null,
    item.claim?.until ?? null,
    item.answer === null ? null : encodeJson(item.answer.value),
    item.answer?.by.sub ?? null,
    item.answer?.by.name ?? null,
    item.answer?.at ?? null,
    item.resumedAt,
    item.answer?.edits === undefined ? null : encodeJson(item.answer.edits),
    item.resumeRunId,
    item.appliedAt,
    item.routing.queue,
    encodeJson(item.payload),
    encodeJson(item.routing),
    encodeJson(workflowOf(item)),
    encodeJson(timersOf(item)),
    item.nextTimerAt,
  ];
}

const WRITE_SET = `status = $2, claim_sub = $3, claim_name = $4, claim_until = $5, answer_value = $6,
  answered_sub = $7, answered_name = $8, answered_at = $9, resumed_at = $10, answer_edits = $11, resume_run_id = $12,
  applied_at = $13, queue = $14, payload = $15, routing = $16, workflow_json = $17,
  timers_json = $18, next_timer_at = $19, version = version + 1`;

/** A conditional UPDATE matched no row although the row was locked: a bug, never a race to report. */
class ReviewWriteConflict extends Error {
  override readonly name = "ReviewWriteConflict";
}

type Step<T> = (item: ReviewItem) => { next: ReviewItem; audit: AuditEntry[]; out: T } | undefined;

export class PostgresReviewStore implements ReviewStore {
  readonly #db: PostgresDatabase;
  readonly #items: string;
  readonly #audit: string;

  constructor(db: PostgresDatabase) {
    this.#db = db;
    this.#items = `${db.q}.hub_review_items`;
    this.#audit = `${db.q}.hub_review_audit`;
  }

  async #append(c: PoolClient, all: readonly AuditEntry[]): Promise<void> {
    const entries: AuditEntry[] = [];
    for (const entry of all) {
      if (entry.kind === "rejected" && entries.length === 0) {
        // Decisions hold the item's row lock: the trail's last line cannot change under us.
        const { rows } = await c.query<AuditRow & { seq: string }>(
          `SELECT seq, interrupt_id, at, kind, by_sub, by_name, reason, detail, source FROM ${this.#audit} WHERE interrupt_id = $1 ORDER BY seq DESC LIMIT 1`,
          [entry.interruptId],
        );
        const last = rows[0];
        const merged = coalesceRejection(last && auditOfRow(last), entry);
        if (last && merged) {
          await c.query(`UPDATE ${this.#audit} SET detail = $1::json WHERE seq = $2`, [encodeJson(merged.detail), last.seq]);
          continue;
        }
      }
      entries.push(entry);
    }
    if (entries.length === 0) return;
    // One statement for every line, in order (the identity column keeps it).
    await c.query(
      `INSERT INTO ${this.#audit} (interrupt_id, at, kind, by_sub, by_name, reason, detail, source)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::json[], $8::json[])`,
      [
        entries.map((e) => e.interruptId),
        entries.map((e) => e.at),
        entries.map((e) => e.kind),
        entries.map((e) => e.by?.sub ?? null),
        entries.map((e) => e.by?.name ?? null),
        entries.map((e) => e.reason ?? null),
        entries.map((e) => (e.detail === undefined ? null : encodeJson(e.detail))),
        entries.map((e) => (e.source === undefined ? null : encodeJson(e.source))),
      ],
    );
  }

  async #write(c: PoolClient, next: ReviewItem, winningAnswer = false): Promise<void> {
    const condition = winningAnswer ? `AND ${PENDING}` : "";
    const result = await c.query(`UPDATE ${this.#items} SET ${WRITE_SET} WHERE interrupt_id = $1 ${condition}`, [
      next.interruptId,
      ...writable(next),
    ]);
    if (result.rowCount !== 1) throw new ReviewWriteConflict(`review item ${next.interruptId} changed under its row lock`);
  }

  async #locked(c: PoolClient, where: string, params: unknown[], lock = "ORDER BY seq FOR UPDATE"): Promise<ItemRow[]> {
    const { rows } = await c.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM ${this.#items} WHERE ${where} ${lock}`, params);
    return rows;
  }

  #decide(interruptId: string, decide: (item: ReviewItem | undefined) => Transition, winningAnswer = false): Promise<Transition["result"]> {
    return this.#db.transaction(async (c) => {
      const [row] = await this.#locked(c, "interrupt_id = $1", [interruptId]);
      const { result, next, audit } = decide(row && fromItemRow(row));
      if (next !== undefined && row !== undefined) await this.#write(c, next, winningAnswer);
      await this.#append(c, audit);
      return result;
    });
  }

  /** Locks the rows `where` selects and applies `step` to each, in one transaction. */
  #sweep<T>(where: string, params: unknown[], step: Step<T>, lock?: string): Promise<T[]> {
    return this.#db.transaction(async (c) => {
      const out: T[] = [];
      for (const row of await this.#locked(c, where, params, lock)) {
        const done = step(fromItemRow(row));
        if (done === undefined) continue;
        await this.#write(c, done.next);
        await this.#append(c, done.audit);
        out.push(done.out);
      }
      return out;
    });
  }

  async createItem(input: NewReviewItem, now: number): Promise<{ item: ReviewItem; created: boolean; revised?: boolean }> {
    const { item, audit } = newItem(input, now);
    return this.#db.transaction(async (c) => {
      // ON CONFLICT: two nodes registering the same interrupt at once both succeed, one creates.
      const inserted = await c.query<ItemRow>(
        `INSERT INTO ${this.#items} (${ITEM_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28)
         ON CONFLICT (interrupt_id) DO NOTHING RETURNING ${ITEM_COLUMNS}`,
        [
          item.interruptId, item.threadId, item.runId, item.tenant, item.routing.queue, item.status,
          encodeJson(item.namespace), item.node, encodeJson(item.payload), encodeJson(item.routing), item.startedBy,
          item.createdAt, item.expiresAt, ...writable(item).slice(1, 12), encodeJson(workflowOf(item)),
          item.action === undefined ? null : encodeJson(item.action),
          encodeJson(timersOf(item)), item.nextTimerAt,
        ],
      );
      const row = inserted.rows[0];
      if (row !== undefined) {
        await this.#append(c, audit);
        return { item: fromItemRow(row), created: true };
      }
      const [locked] = await this.#locked(c, "interrupt_id = $1", [input.interruptId]);
      if (locked === undefined) throw new ReviewWriteConflict(`review item ${input.interruptId} vanished during its creation`);
      const existing = fromItemRow(locked);
      const reraised = reraiseItem(existing, input, now);
      if (reraised === undefined) return { item: existing, created: false };
      await this.#write(c, reraised.next);
      await this.#append(c, reraised.audit);
      return { item: reraised.next, created: false, revised: true };
    });
  }

  async #select(c: PoolClient | PostgresDatabase["pool"], interruptId: string): Promise<ReviewItem | undefined> {
    const { rows } = await c.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM ${this.#items} WHERE interrupt_id = $1`, [interruptId]);
    return rows[0] && fromItemRow(rows[0]);
  }

  getItem(interruptId: string): Promise<ReviewItem | undefined> {
    return this.#select(this.#db.pool, interruptId);
  }

  async listItems(filter: ListItemsFilter): Promise<ReviewItem[]> {
    const statuses = filter.status === undefined ? null : typeof filter.status === "string" ? [filter.status] : [...filter.status];
    const { rows } = await this.#db.pool.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM ${this.#items} WHERE tenant = $1 AND ($2::text IS NULL OR queue = $2)
         AND ($3::text[] IS NULL OR status = ANY($3::text[]))
         AND ($4::text IS NULL OR thread_id = $4) AND ($5::text IS NULL OR run_id = $5)
       ORDER BY created_at, seq`,
      [filter.tenant, filter.queue ?? null, statuses, filter.threadId ?? null, filter.runId ?? null],
    );
    return rows.map(fromItemRow);
  }

  answer(interruptId: string, principal: Principal, value: unknown, now: number, edits?: ResumeEdits, expect?: AnswerExpectations): Promise<AnswerResult> {
    const decide = (item: ReviewItem | undefined) => withSource(decideAnswer(item, interruptId, principal, value, now, edits, expect), principal);
    if (!editsState(edits)) return this.#decide(interruptId, decide, true);
    // The answer and the revision of the thread's other pending items: one transaction. Every row
    // of the thread it touches is locked up front, in seq order, so two such answers cannot deadlock.
    return this.#db.transaction(async (c) => {
      const { rows: [owner] } = await c.query<{ thread_id: string }>(`SELECT thread_id FROM ${this.#items} WHERE interrupt_id = $1`, [interruptId]);
      const rows = owner === undefined ? [] : await this.#locked(c, `thread_id = $1 AND (${PENDING} OR interrupt_id = $2)`, [owner.thread_id, interruptId]);
      const row = rows.find((r) => r.interrupt_id === interruptId);
      const { result, next, audit } = decide(row && fromItemRow(row));
      if (next !== undefined && row !== undefined) await this.#write(c, next, true);
      await this.#append(c, audit);
      if (!result.ok) return result;
      const revised: ReviewItem[] = [];
      for (const other of rows) {
        if (other.interrupt_id === interruptId) continue;
        const done = reviseOnEdit(fromItemRow(other), now, "state_updated");
        if (done === undefined) continue;
        await this.#write(c, done.next);
        await this.#append(c, done.audit);
        revised.push(done.next);
      }
      return revised.length === 0 ? result : { ...result, revised };
    });
  }

  reassign(interruptId: string, principal: Principal, target: ReassignTarget, now: number): Promise<Decision> {
    return this.#decide(interruptId, (item) => withSource(decideReassign(item, interruptId, principal, target, now), principal));
  }

  reviseForThread(threadId: string, now: number, reason: string): Promise<ReviewItem[]> {
    return this.#sweep(`thread_id = $1 AND ${PENDING}`, [threadId], (item) => {
      const done = reviseOnEdit(item, now, reason);
      return done && { ...done, out: done.next };
    });
  }

  claim(interruptId: string, principal: Principal, ttlMs: number, now: number): Promise<Decision> {
    return this.#decide(interruptId, (item) => withSource(decideClaim(item, interruptId, principal, ttlMs, now), principal));
  }

  release(interruptId: string, principal: Principal, now: number): Promise<Decision> {
    return this.#decide(interruptId, (item) => withSource(decideRelease(item, interruptId, principal, now), principal));
  }

  expireClaims(now: number): Promise<LapsedClaim[]> {
    return this.#sweep("status = 'claimed' AND claim_until <= $1", [new Date(now).toISOString()], (item) => {
      const done = lapseClaim(item, now);
      return done && { next: done.lapsed.item, audit: done.audit, out: done.lapsed };
    });
  }

  expireDue(now: number): Promise<ExpiredItem[]> {
    return this.#sweep(`${PENDING} AND expires_at IS NOT NULL AND expires_at <= $1`, [new Date(now).toISOString()], (item) => {
      const done = expireItem(item, now);
      return done && { next: done.expired.item, audit: done.audit, out: done.expired };
    });
  }

  /**
   * Every due timer, claimed in one transaction: the rows are locked with
   * SKIP LOCKED, so a node that ticks at the same moment takes other items (or
   * none) instead of waiting, and after the commit the steps are advanced for
   * every node and for a restarted one.
   */
  async fireDueTimers(now: number): Promise<FiredTimers[]> {
    const fired = await this.#sweep(
      `${PENDING} AND next_timer_at IS NOT NULL AND next_timer_at <= $1`,
      [new Date(now).toISOString(), TIMER_BATCH],
      (before) => {
        const done = fireDue(before, now);
        return done && { next: done.next, audit: done.audit, out: { before, item: done.next, fired: done.fired } };
      },
      "ORDER BY next_timer_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED",
    );
    return fired.filter((f) => f.fired.length > 0);
  }

  cancelForRun(runId: string, now: number, reason = DEFAULT_CANCEL_REASON): Promise<ReviewItem[]> {
    return this.#sweep(`run_id = $1 AND ${PENDING}`, [runId], (item) => {
      const done = cancelItem(item, now, reason);
      return done && { ...done, out: done.next };
    });
  }

  cancelForThread(threadId: string, now: number, reason = DEFAULT_CANCEL_REASON): Promise<ReviewItem[]> {
    return this.#sweep(`thread_id = $1 AND ${PENDING}`, [threadId], (item) => {
      const done = cancelItem(item, now, reason);
      return done && { ...done, out: done.next };
    });
  }

  async deleteForThread(threadId: string): Promise<number> {
    const client = await this.#db.pool.connect();
    // Lost while checked out, the connection emits 'error' on the client: without a listener that is an uncaught exception.
    client.on("error", ignoreLostConnection);
    try {
      await client.query("BEGIN");
      await client.query(`DELETE FROM ${this.#audit} WHERE interrupt_id IN (SELECT interrupt_id FROM ${this.#items} WHERE thread_id = $1)`, [threadId]);
      const { rowCount } = await client.query(`DELETE FROM ${this.#items} WHERE thread_id = $1`, [threadId]);
      await client.query("COMMIT");
      return rowCount ?? 0;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.off("error", ignoreLostConnection);
      client.release();
    }
  }

  async unappliedResumes(): Promise<ResumeBatch[]> {
    const { rows } = await this.#db.pool.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM ${this.#items} WHERE resume_run_id IS NOT NULL AND applied_at IS NULL ORDER BY seq`,
    );
    return batchesOf(rows.map(fromItemRow));
  }

  async markApplied(resumeRunId: string, now: number): Promise<void> {
    await this.#db.pool.query(
      `UPDATE ${this.#items} SET applied_at = $2, version = version + 1 WHERE resume_run_id = $1 AND applied_at IS NULL`,
      [resumeRunId, new Date(now).toISOString()],
    );
  }

  takeResume(runId: string, policy: ResumePolicy, now: number, resumeRunId: string): Promise<ResumeBatch | null> {
    return this.#db.transaction(async (c) => {
      const rows = await this.#locked(c, "run_id = $1", [runId]);
      const plan = planResume(rows.map(fromItemRow), policy, now, resumeRunId);
      if (plan === undefined) return null;
      for (const next of plan.next) await this.#write(c, next);
      return plan.batch;
    });
  }

  async nextDeadline(): Promise<string | null> {
    const { rows } = await this.#db.pool.query<{ at: string | null }>(
      `SELECT LEAST(
         (SELECT min(next_timer_at) FROM ${this.#items} WHERE ${PENDING} AND next_timer_at IS NOT NULL),
         (SELECT min(claim_until) FROM ${this.#items} WHERE status = 'claimed')) AS at`,
    );
    return rows[0]?.at ?? null;
  }

  async auditOf(interruptId: string, page: AuditPage = ALL_AUDIT): Promise<AuditEntry[]> {
    const { rows } = await this.#db.pool.query<AuditRow>(
      `SELECT interrupt_id, at, kind, by_sub, by_name, reason, detail, source FROM ${this.#audit} WHERE interrupt_id = $1 ORDER BY seq LIMIT $2 OFFSET $3`,
      [interruptId, page.limit, page.offset],
    );
    return rows.map(auditOfRow);
  }

  async exportAudit(f: AuditExportFilter): Promise<AuditRecord[]> {
    const { rows } = await this.#db.pool.query<AuditRow & { seq: string; tenant: string; thread_id: string; run_id: string; queue: string }>(
      `SELECT a.seq, a.interrupt_id, a.at, a.kind, a.by_sub, a.by_name, a.reason, a.detail, a.source, i.tenant, i.thread_id, i.run_id, i.queue
       FROM ${this.#audit} a JOIN ${this.#items} i ON i.interrupt_id = a.interrupt_id
       WHERE i.tenant = $1 AND a.seq > $2 AND ($3::text IS NULL OR a.at COLLATE "C" >= $3) AND ($4::text IS NULL OR a.at COLLATE "C" < $4)
         AND ($5::text IS NULL OR i.thread_id = $5) AND ($6::text IS NULL OR i.queue = $6) AND ($7::text IS NULL OR a.by_sub = $7)
       ORDER BY a.seq LIMIT $8`,
      [f.tenant, f.after, f.from ?? null, f.to ?? null, f.threadId ?? null, f.queue ?? null, f.person ?? null, f.limit],
    );
    return rows.map((row) => ({ ...auditOfRow(row), seq: Number(row.seq), tenant: row.tenant, threadId: row.thread_id, runId: row.run_id, queue: row.queue }));
  }

  /** The database is the node's, shared by every store: nothing to close here. */
  async close(): Promise<void> {}
}

/** The query under way (or the next one) fails with the cause; the pool drops the broken client on release. */
function ignoreLostConnection(): void {}

function auditOfRow(row: AuditRow): AuditEntry {
  const entry: AuditEntry = { interruptId: row.interrupt_id, at: row.at, kind: row.kind };
  if (row.by_sub !== null) entry.by = { sub: row.by_sub, name: row.by_name ?? "" };
  if (row.reason !== null) entry.reason = row.reason;
  if (row.detail !== null) entry.detail = row.detail;
  if (row.source !== null) entry.source = row.source;
  return entry;
}
