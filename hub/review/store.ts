/**
 * The review store port: review items and their audit trail, with every
 * decision (answer, claim, release, expiry, cancel, resume hand-off) made
 * atomically inside the store, so first-answer-wins holds across requests
 * and, with a shared database, across hub nodes. Backends: memory.ts,
 * sqlite.ts; a Postgres one must pass the same conformance suite
 * (test/hub/review/conformance.ts). `now` is epoch ms from the caller's clock.
 */
import type { Principal } from "../auth/index.ts";
import type { AuditExportFilter, AuditRecord } from "./audit-export.ts";
import type { AnswerExpectations, ReassignTarget } from "./types.ts";
import type { VoteResult } from "./quorum.ts";
import type { AuditEntry, Decision, ExpiredItem, FiredTimers, LapsedClaim, ListItemsFilter, NewReviewItem, ResumeBatch, ResumeEdits, ResumePolicy, ReviewItem } from "./types.ts";

export interface ReviewStore {
  /**
   * Idempotent on interruptId: a known id returns the stored item, `created: false`,
   * unchanged — unless it is pending and raised again with another payload: then
   * the payload is replaced and the revision bumped (transitions.reraiseItem).
   */
  createItem(input: NewReviewItem, now: number): Promise<{ item: ReviewItem; created: boolean; revised?: boolean }>;
  getItem(interruptId: string): Promise<ReviewItem | undefined>;
  /** Oldest first. */
  listItems(filter: ListItemsFilter): Promise<ReviewItem[]>;

  /**
   * First authorized, valid answer wins. Refusals change nothing but append
   * a `rejected` audit entry (none for an unknown id).
   */
  answer(interruptId: string, principal: Principal, value: unknown, now: number, edits?: ResumeEdits, expect?: AnswerExpectations): Promise<AnswerResult>;
  /** Moves a pending item to another queue or candidates (quorum.ts planReassign: who may). */
  reassign(interruptId: string, principal: Principal, target: ReassignTarget, now: number): Promise<Decision>;
  /** The thread's state was edited: each pending item of it moves to its next revision (and digest); returns them. */
  reviseForThread(threadId: string, now: number, reason: string): Promise<ReviewItem[]>;
  /** Takes or renews a lease of `ttlMs`. */
  claim(interruptId: string, principal: Principal, ttlMs: number, now: number): Promise<Decision>;
  /** Ends a lease early; `changed: false` when there was no live lease. */
  release(interruptId: string, principal: Principal, now: number): Promise<Decision>;

  /** Frees claims whose lease lapsed by `now`. */
  expireClaims(now: number): Promise<LapsedClaim[]>;
  /** Expires pending items whose deadline passed by `now` (by their policy: a `keep` item stays). */
  expireDue(now: number): Promise<ExpiredItem[]>;
  /**
   * Fires the timers of pending items due by `now` — expiry by policy, a
   * `keep` deadline noted, escalation steps, a reminder (timers.ts fireDue) —
   * claiming each atomically: the step is advanced in the same write, so
   * another caller (node, store instance, restarted process) with the same
   * `now` fires nothing twice. Returns the items something fired on.
   */
  fireDueTimers(now: number): Promise<FiredTimers[]>;
  /** Cancels the pending items of a run (or of a thread); returns them. */
  cancelForRun(runId: string, now: number, reason?: string): Promise<ReviewItem[]>;
  cancelForThread(threadId: string, now: number, reason?: string): Promise<ReviewItem[]>;
  /** Removes every item of the thread (any status) and their audit trails; how many items went. */
  deleteForThread(threadId: string): Promise<number>;

  /**
   * Hands the run's answers (and expiry defaults) not yet resumed to exactly
   * one caller, when `policy` says the run should resume now; else null. The
   * items record `resumeRunId` as their one consumer.
   */
  takeResume(runId: string, policy: ResumePolicy, now: number, resumeRunId: string): Promise<ResumeBatch | null>;
  /** Batches taken by a resume run that has not applied them yet (it crashed, or is running), oldest first. */
  unappliedResumes(): Promise<ResumeBatch[]>;
  /** The resume run applied its batch: it is never handed out again. */
  markApplied(resumeRunId: string, now: number): Promise<void>;
  /** Earliest live-claim end or pending item's nextTimerAt (ISO), for scheduling tick(); null if none. */
  nextDeadline(): Promise<string | null>;

  /**
   * The item's audit trail in the order it was written, or one page of it
   * (`offset` lines skipped, at most `limit` returned). Repeated refusals
   * are one line (transitions.coalesceRejection).
   */
  auditOf(interruptId: string, page?: AuditPage): Promise<AuditEntry[]>;
  /**
   * One page of a tenant's audit lines in the order written, filtered
   * (audit-export.ts): the export reads page after page, never the whole trail at once.
   */
  exportAudit(filter: AuditExportFilter): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

export const DEFAULT_CANCEL_REASON = "run_ended";

/**
 * An answer's decision; `vote` when it was a vote on a quorum item; `revised`:
 * an accepted answer that edits the state (transitions.editsState) moved the
 * thread's other pending items to their next revision in the same atomic step.
 */
export type AnswerResult = Decision & { vote?: VoteResult; revised?: ReviewItem[] };

/** A page of an audit trail. */
export interface AuditPage {
  offset: number;
  limit: number;
}

/** The whole trail. */
export const ALL_AUDIT: AuditPage = { offset: 0, limit: Number.MAX_SAFE_INTEGER };
