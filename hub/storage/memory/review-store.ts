/**
 * MemoryReviewStore: review items in process memory, for tests and a hub
 * without a data dir. Each decision reads, decides and writes with no await
 * in between, so it is atomic on the one JS thread. Items go in and out as
 * JSON copies, exactly as the SQLite backend returns them.
 */
import type { Principal } from "../../auth/index.ts";
import { ALL_AUDIT, DEFAULT_CANCEL_REASON } from "../../review/store.ts";
import type { AnswerResult, AuditPage, ReviewStore } from "../../review/store.ts";
import {
  applyItem,
  batchesOf,
  cancelItem,
  cloneJson,
  coalesceRejection,
  decideAnswer,
  decideClaim,
  decideReassign,
  decideRelease,
  editsState,
  expireItem,
  reraiseItem,
  reviseOnEdit,
  isPending,
  lapseClaim,
  newItem,
  planResume,
} from "../../review/transitions.ts";
import type { Transition } from "../../review/transitions.ts";
import { fireDue } from "../../review/timers.ts";
import { matchesExport, withSource, type AuditExportFilter, type AuditRecord } from "../../review/audit-export.ts";
import type { VoteResult } from "../../review/quorum.ts";
import type { AnswerExpectations, ReassignTarget } from "../../review/types.ts";
import type { AuditEntry, Decision, ExpiredItem, FiredTimers, LapsedClaim, ListItemsFilter, NewReviewItem, ResumeBatch, ResumeEdits, ResumePolicy, ReviewItem } from "../../review/types.ts";

export class MemoryReviewStore implements ReviewStore {
  /** Insertion order is creation order: listItems needs no sort. */
  readonly #items = new Map<string, ReviewItem>();
  readonly #audit = new Map<string, AuditEntry[]>();

  /** Each audit line's place in write order (the export's cursor); a coalesced line keeps its place. */
  readonly #seqOf = new WeakMap<AuditEntry, number>();
  #auditSeq = 0;

  #append(entries: readonly AuditEntry[]): void {
    for (const entry of entries) {
      const trail = this.#audit.get(entry.interruptId) ?? [];
      const last = trail.at(-1);
      const merged = coalesceRejection(last, entry);
      if (merged && last) {
        const line = cloneJson(merged);
        this.#seqOf.set(line, this.#seqOf.get(last) ?? ++this.#auditSeq);
        trail[trail.length - 1] = line;
      } else {
        const line = cloneJson(entry);
        this.#seqOf.set(line, ++this.#auditSeq);
        trail.push(line);
      }
      this.#audit.set(entry.interruptId, trail);
    }
  }

  #apply(transition: Transition): Decision & { vote?: VoteResult } {
    if (transition.next !== undefined) this.#items.set(transition.next.interruptId, cloneJson(transition.next));
    this.#append(transition.audit);
    return cloneJson(transition.result);
  }

  /** Applies a per-item step to every matching item; returns the changed ones. */
  #sweep<T>(
    match: (item: ReviewItem) => boolean,
    step: (item: ReviewItem) => { next: ReviewItem; audit: AuditEntry[]; out: T } | undefined,
  ): T[] {
    const out: T[] = [];
    for (const item of this.#items.values()) {
      if (!match(item)) continue;
      const done = step(item);
      if (done === undefined) continue;
      this.#items.set(item.interruptId, done.next);
      this.#append(done.audit);
      out.push(cloneJson(done.out));
    }
    return out;
  }

  async createItem(input: NewReviewItem, now: number): Promise<{ item: ReviewItem; created: boolean; revised?: boolean }> {
    const existing = this.#items.get(input.interruptId);
    if (existing !== undefined) {
      const reraised = reraiseItem(existing, input, now);
      if (reraised !== undefined) {
        this.#items.set(existing.interruptId, cloneJson(reraised.next));
        this.#append(reraised.audit);
      }
      return { item: cloneJson(reraised?.next ?? existing), created: false, ...(reraised === undefined ? {} : { revised: true }) };
    }
    const { item, audit } = newItem(input, now);
    this.#items.set(item.interruptId, item);
    this.#append(audit);
    return { item: cloneJson(item), created: true };
  }

  async getItem(interruptId: string): Promise<ReviewItem | undefined> {
    const item = this.#items.get(interruptId);
    return item && cloneJson(item);
  }

  async listItems(filter: ListItemsFilter): Promise<ReviewItem[]> {
    const statuses = filter.status === undefined ? undefined : typeof filter.status === "string" ? [filter.status] : filter.status;
    return [...this.#items.values()]
      .filter(
        (i) =>
          i.tenant === filter.tenant &&
          (filter.queue === undefined || i.routing.queue === filter.queue) &&
          (statuses === undefined || statuses.includes(i.status)) &&
          (filter.threadId === undefined || i.threadId === filter.threadId) &&
          (filter.runId === undefined || i.runId === filter.runId),
      )
      .map((i) => cloneJson(i));
  }

  async answer(interruptId: string, principal: Principal, value: unknown, now: number, edits?: ResumeEdits, expect?: AnswerExpectations): Promise<AnswerResult> {
    const result = this.#apply(withSource(decideAnswer(this.#items.get(interruptId), interruptId, principal, value, now, edits, expect), principal));
    if (!result.ok || !editsState(edits)) return result;
    // No await since the decision: the same atomic step.
    const threadId = result.item.threadId;
    const revised = this.#sweep(
      (i) => i.threadId === threadId && i.interruptId !== interruptId,
      (i) => {
        const done = reviseOnEdit(i, now, "state_updated");
        return done && { ...done, out: done.next };
      },
    );
    return revised.length === 0 ? result : { ...result, revised };
  }

  async reassign(interruptId: string, principal: Principal, target: ReassignTarget, now: number): Promise<Decision> {
    return this.#apply(withSource(decideReassign(this.#items.get(interruptId), interruptId, principal, target, now), principal));
  }

  async reviseForThread(threadId: string, now: number, reason: string): Promise<ReviewItem[]> {
    return this.#sweep(
      (i) => i.threadId === threadId,
      (i) => {
        const done = reviseOnEdit(i, now, reason);
        return done && { ...done, out: done.next };
      },
    );
  }

  async claim(interruptId: string, principal: Principal, ttlMs: number, now: number): Promise<Decision> {
    return this.#apply(withSource(decideClaim(this.#items.get(interruptId), interruptId, principal, ttlMs, now), principal));
  }

  async release(interruptId: string, principal: Principal, now: number): Promise<Decision> {
    return this.#apply(withSource(decideRelease(this.#items.get(interruptId), interruptId, principal, now), principal));
  }

  async expireClaims(now: number): Promise<LapsedClaim[]> {
    return this.#sweep(
      (i) => i.status === "claimed",
      (i) => {
        const done = lapseClaim(i, now);
        return done && { next: done.lapsed.item, audit: done.audit, out: done.lapsed };
      },
    );
  }

  async expireDue(now: number): Promise<ExpiredItem[]> {
    return this.#sweep(
      (i) => isPending(i.status),
      (i) => {
        const done = expireItem(i, now);
        return done && { next: done.expired.item, audit: done.audit, out: done.expired };
      },
    );
  }

  /** Synchronous between reads and writes: one caller fires each step, later callers find it advanced. */
  async fireDueTimers(now: number): Promise<FiredTimers[]> {
    const due = new Date(now).toISOString();
    const fired = this.#sweep(
      (i) => isPending(i.status) && i.nextTimerAt !== null && i.nextTimerAt <= due,
      (before) => {
        const done = fireDue(before, now);
        return done && { next: done.next, audit: done.audit, out: { before, item: done.next, fired: done.fired } };
      },
    );
    return fired.filter((f) => f.fired.length > 0);
  }

  async cancelForRun(runId: string, now: number, reason = DEFAULT_CANCEL_REASON): Promise<ReviewItem[]> {
    return this.#sweep(
      (i) => i.runId === runId,
      (i) => {
        const done = cancelItem(i, now, reason);
        return done && { ...done, out: done.next };
      },
    );
  }

  async cancelForThread(threadId: string, now: number, reason = DEFAULT_CANCEL_REASON): Promise<ReviewItem[]> {
    return this.#sweep(
      (i) => i.threadId === threadId,
      (i) => {
        const done = cancelItem(i, now, reason);
        return done && { ...done, out: done.next };
      },
    );
  }

  async deleteForThread(threadId: string): Promise<number> {
    let count = 0;
    for (const [id, item] of this.#items) {
      if (item.threadId !== threadId) continue;
      this.#items.delete(id);
      this.#audit.delete(id);
      count++;
    }
    return count;
  }

  async takeResume(runId: string, policy: ResumePolicy, now: number, resumeRunId: string): Promise<ResumeBatch | null> {
    const plan = planResume([...this.#items.values()].filter((i) => i.runId === runId), policy, now, resumeRunId);
    if (plan === undefined) return null;
    for (const item of plan.next) this.#items.set(item.interruptId, item);
    return cloneJson(plan.batch);
  }

  async unappliedResumes(): Promise<ResumeBatch[]> {
    return cloneJson(batchesOf([...this.#items.values()].filter((i) => i.resumeRunId !== null && i.appliedAt === null)));
  }

  async markApplied(resumeRunId: string, now: number): Promise<void> {
    for (const item of this.#items.values()) {
      const next = item.resumeRunId === resumeRunId ? applyItem(item, now) : undefined;
      if (next !== undefined) this.#items.set(item.interruptId, next);
    }
  }

  async nextDeadline(): Promise<string | null> {
    let next: string | null = null;
    for (const item of this.#items.values()) {
      const candidates = [isPending(item.status) ? item.nextTimerAt : null, item.status === "claimed" ? (item.claim?.until ?? null) : null];
      for (const at of candidates) if (at !== null && (next === null || at < next)) next = at;
    }
    return next;
  }

  async exportAudit(filter: AuditExportFilter): Promise<AuditRecord[]> {
    const out: AuditRecord[] = [];
    for (const [id, trail] of this.#audit) {
      const item = this.#items.get(id);
      if (item === undefined || item.tenant !== filter.tenant) continue;
      for (const entry of trail) {
        const record: AuditRecord = { ...entry, seq: this.#seqOf.get(entry) ?? 0, tenant: item.tenant, threadId: item.threadId, runId: item.runId, queue: item.routing.queue };
        if (matchesExport(record, filter)) out.push(record);
      }
    }
    return cloneJson(out.sort((a, b) => a.seq - b.seq).slice(0, filter.limit));
  }

  async auditOf(interruptId: string, page: AuditPage = ALL_AUDIT): Promise<AuditEntry[]> {
    return cloneJson((this.#audit.get(interruptId) ?? []).slice(page.offset, page.offset + page.limit));
  }

  async close(): Promise<void> {}
}
