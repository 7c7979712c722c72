/**
 * ReviewService: what the hub calls when an interrupt is raised, answered,
 * claimed or released, and on a timer (tick). It routes new items, lets the
 * store decide atomically, reports wire events through one callback, and
 * returns the resume batches the hub must run — each answer set exactly once.
 * It starts no timers itself: the hub schedules tick() (see nextDeadline()).
 */
import { nanoid } from "nanoid";
import type { Principal } from "../auth/index.ts";
import { ALL_QUEUES, assertNever, isRecord } from "../protocol/index.ts";
import { actionItemId, actionsOf, routeActions, splitGroupAnswer } from "./actions.ts";
import { answeredEvent, cancelledEvent, claimedEvent, escalatedEvent, expiredEvent, reassignedEvent, releasedEvent, reminderEvent, requestedEvent, votedEvent } from "./events.ts";
import type { ReviewEvent } from "./events.ts";
import { hasOverride, mayAnswer, mayView } from "./policy.ts";
import { describeRoutingIssues, routingOf } from "./routing.ts";
import type { RoutingDefaults, RoutingIssue } from "./routing.ts";
import { DEFAULT_CANCEL_REASON, type AuditPage, type ReviewStore } from "./store.ts";
import type { VoteResult } from "./quorum.ts";
import type { AnswerExpectations, ReassignTarget } from "./types.ts";
import type { AuditEntry, Decision, ExpiredItem, FiredTimers, LapsedClaim, Refusal, ResumeBatch, ResumeEdits, ResumePolicy, NewReviewItem, ReviewItem } from "./types.ts";
import { PENDING_STATUSES } from "./types.ts";

export const DEFAULT_CLAIM_TTL_MS = 5 * 60_000;

export interface ReviewLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface ReviewServiceOptions {
  store: ReviewStore;
  routing: RoutingDefaults;
  /** Epoch ms; inject one in tests to drive claims and deadlines. */
  clock?: () => number;
  /** Every wire event; must not throw (a throw is logged, the decision stands). */
  onEvent?: (event: ReviewEvent) => void;
  /** Per-thread resume policy; "batch" when omitted. */
  resumePolicy?: (threadId: string) => ResumePolicy;
  claimTtlMs?: number;
  logger?: ReviewLogger;
  /** Ids of resume runs (default nanoid): chosen before the batch is taken, so the record names its consumer. */
  newRunId?: () => string;
}

/** An interrupt as the hub learns it from the run (routing is resolved from it); the run's starter decides self-approval. */
export type InterruptRequest = Omit<NewReviewItem, "routing">;

export interface AnswerInput {
  interruptId: string;
  value: unknown;
  /** State edits applied by the resume with this answer (stored with it). */
  edits?: ResumeEdits;
  /** What the answerer saw (`payload_digest`): another current digest refuses the answer. */
  expect?: AnswerExpectations;
}

export interface BatchOutcome {
  /** One per input, in order; `vote` for an answer that was a vote on a quorum item. */
  results: Array<{ interruptId: string; result: Decision; vote?: VoteResult }>;
  /** Resumes to run now, at most one per run. */
  resumes: ResumeBatch[];
}

export interface TickOutcome {
  expired: ExpiredItem[];
  /** Every item a timer fired on (expiry, overdue, escalation, reminder), as the store claimed them. */
  timers: FiredTimers[];
  /** Leases that lapsed; their items are open again. */
  claimsLapsed: LapsedClaim[];
  /** Resumes made due by expiry (default responses, or a batch no longer waiting). */
  resumes: ResumeBatch[];
}

type RunRef = { runId: string; tenant: string };

export class ReviewService {
  readonly #store: ReviewStore;
  readonly #defaults: RoutingDefaults;
  readonly #clock: () => number;
  readonly #onEvent: (event: ReviewEvent) => void;
  readonly #policy: (threadId: string) => ResumePolicy;
  readonly #claimTtlMs: number;
  readonly #logger: ReviewLogger | undefined;
  readonly #newRunId: () => string;

  constructor(options: ReviewServiceOptions) {
    this.#store = options.store;
    this.#defaults = options.routing;
    this.#clock = options.clock ?? Date.now;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#policy = options.resumePolicy ?? (() => "batch");
    this.#claimTtlMs = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
    this.#logger = options.logger;
    this.#newRunId = options.newRunId ?? (() => nanoid());
  }

  #emit(item: ReviewItem, event: ReviewEvent["event"], audience: ReviewEvent["audience"] = "all", before?: ReviewItem): void {
    try {
      this.#onEvent(before === undefined ? { item, audience, event } : { item, audience, event, before });
    } catch (error) {
      this.#logger?.error(`review event ${event.method} for ${item.interruptId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async #resumes(runs: ReadonlyMap<string, string>, now: number): Promise<ResumeBatch[]> {
    const out: ResumeBatch[] = [];
    for (const [runId, threadId] of runs) {
      const batch = await this.#store.takeResume(runId, this.#policy(threadId), now, this.#newRunId());
      if (batch !== null) out.push(batch);
    }
    return out;
  }

  /**
   * Routes and stores a new interrupt (idempotent on its id) and tells queue
   * subscribers. A multi-action interrupt (actions.ts) becomes one item per
   * action, `items` in action order (`item` is the first).
   */
  async onInterruptRequested(request: InterruptRequest): Promise<{ item: ReviewItem; items: ReviewItem[]; created: boolean; issues: RoutingIssue[] }> {
    const now = this.#clock();
    const { interruptId, threadId, runId, tenant, namespace, node, payload } = request;
    const ctx = { interruptId, threadId, runId, tenant, namespace, node, now };
    const actions = actionsOf(payload);
    if (actions !== undefined) {
      const { routings, issues } = routeActions(payload, actions, this.#defaults, ctx);
      if (issues.length > 0) this.#logger?.warn(describeRoutingIssues(interruptId, issues));
      const items: ReviewItem[] = [];
      let created = false;
      for (const [index, proposed] of actions.actions.entries()) {
        const action = { interruptId, index, count: actions.actions.length, name: proposed.name, format: actions.format, allowed: proposed.allowed, ...(proposed.argsSchema ? { argsSchema: proposed.argsSchema } : {}) };
        const routing = routings[index] ?? routings[0]!;
        const stored = await this.#store.createItem({ ...request, interruptId: actionItemId(interruptId, index), payload: proposed.payload, routing, action }, now);
        if (stored.created || stored.revised === true) this.#emit(stored.item, requestedEvent(stored.item, now), "queue");
        created ||= stored.created;
        items.push(stored.item);
      }
      return { item: items[0]!, items, created, issues };
    }
    const { routing, issues } = routingOf(payload, this.#defaults, ctx);
    if (isRecord(payload) && isRecord(payload["review"]) && payload["review"]["actions"] !== undefined) {
      issues.push({ path: "review.actions", message: "only an interrupt with several actions (LangChain's action_requests, an Agent Inbox list) is routed per action; ignored" });
    }
    if (issues.length > 0) this.#logger?.warn(describeRoutingIssues(interruptId, issues));
    const { item, created, revised } = await this.#store.createItem({ ...request, routing }, now);
    // A re-raised question with another payload: queues get the new payload and digest (an update of the item they hold).
    if (created || revised === true) this.#emit(item, requestedEvent(item, now), "queue");
    return { item, items: [item], created, issues };
  }

  async answer(principal: Principal, interruptId: string, value: unknown): Promise<{ result: Decision; resume: ResumeBatch | null }> {
    const { results, resumes } = await this.answerBatch(principal, [{ interruptId, value }]);
    const result = results[0]?.result ?? { ok: false, code: "unknown_interrupt", message: `no review item for interrupt ${interruptId}` };
    return { result, resume: resumes[0] ?? null };
  }

  /**
   * Each answer is decided on its own (first authorized answer wins per
   * item); resumes are taken after the whole batch, so a batch that answers
   * several interrupts of a run resumes it once even under `eager`.
   */
  async answerBatch(principal: Principal, answers: readonly AnswerInput[]): Promise<BatchOutcome> {
    const now = this.#clock();
    const seen = new Set<string>();
    const runs = new Map<string, string>();
    const results: BatchOutcome["results"] = [];
    for (const { interruptId, value, edits, expect } of await this.#expandGroups(principal, answers, results)) {
      if (seen.has(interruptId)) {
        results.push({ interruptId, result: { ok: false, code: "invalid_argument", message: `interrupt ${interruptId} is answered twice in one batch` } });
        continue;
      }
      seen.add(interruptId);
      const { vote, revised, ...result } = await this.#store.answer(interruptId, principal, value, now, edits, expect);
      if (result.ok && vote !== undefined) {
        this.#emit(result.item, votedEvent(result.item, vote, now));
        // The next stage's candidates see the item appear in their queues.
        if (vote.outcome === "stage_approved") this.#emit(result.item, requestedEvent(result.item, now), "queue");
      }
      if (result.ok && result.item.status === "answered") {
        this.#emit(result.item, answeredEvent(result.item, now));
        runs.set(result.item.runId, result.item.threadId);
      }
      results.push({ interruptId, result: result as Decision, ...(vote === undefined ? {} : { vote }) });
      // It edited the state the run resumes into: the thread's other questions moved to a new revision with it (in the store).
      for (const item of revised ?? []) this.#emit(item, requestedEvent(item, now), "queue");
    }
    return { results, resumes: await this.#resumes(runs, now) };
  }

  /**
   * Answers to a multi-action interrupt's own id become one answer per action
   * item (actions.ts splitGroupAnswer); a malformed one is refused into
   * `results`. Other answers pass unchanged.
   */
  async #expandGroups(principal: Principal, answers: readonly AnswerInput[], results: BatchOutcome["results"]): Promise<AnswerInput[]> {
    const out: AnswerInput[] = [];
    for (const answer of answers) {
      const group = await this.actionGroup(principal, answer.interruptId);
      if (group === undefined) {
        out.push(answer);
        continue;
      }
      if (answer.expect?.payloadDigest !== undefined) {
        // Each action item has its own digest: one digest cannot bind them all.
        const message = `interrupt ${answer.interruptId} has ${group.count} actions, each with its own payload_digest: answer each item (${actionItemId(answer.interruptId, 0)}, …) with its digest`;
        results.push({ interruptId: answer.interruptId, result: { ok: false, code: "invalid_argument", message } });
        continue;
      }
      const split = splitGroupAnswer(answer.interruptId, group, answer.value);
      if (!split.ok) {
        results.push({ interruptId: answer.interruptId, result: { ok: false, code: "invalid_argument", message: split.message } });
        continue;
      }
      split.values.forEach((value, index) => {
        const each: AnswerInput = { interruptId: actionItemId(answer.interruptId, index), value };
        if (index === 0 && answer.edits !== undefined) each.edits = answer.edits;
        out.push(each);
      });
    }
    return out;
  }

  /** The action of an interrupt's first item, when `interruptId` is a multi-action interrupt of the principal's tenant (not an item). */
  async actionGroup(principal: Principal, interruptId: string): Promise<NonNullable<ReviewItem["action"]> | undefined> {
    if ((await this.#store.getItem(interruptId)) !== undefined) return undefined;
    const first = await this.#store.getItem(actionItemId(interruptId, 0));
    return first?.action?.interruptId === interruptId && first.tenant === principal.tenant ? first.action : undefined;
  }

  /**
   * Moves a pending item (quorum.ts planReassign says who may): `input.reassigned`
   * reaches the thread and the old and new queues' subscribers; those who see
   * the item only now get its `input.requested` first.
   */
  async reassign(principal: Principal, interruptId: string, target: ReassignTarget): Promise<Decision> {
    const now = this.#clock();
    const previous = await this.#store.getItem(interruptId);
    const result = await this.#store.reassign(interruptId, principal, target, now);
    if (result.ok && previous !== undefined) {
      // The same rule as the store's (quorum.ts planReassign): without an override role it was a delegation.
      const delegated = !hasOverride(principal, previous);
      const by = { sub: principal.sub, name: principal.name };
      // Re-routing: the queues it left hear it go; who sees it only now gets it first (coordinator, queues.ts deliverMove).
      this.#emit(result.item, reassignedEvent(previous, result.item, by, delegated, target.reason, now), "all", previous);
    }
    return result;
  }

  /** The thread's state was edited: its pending items move to their next revision (new payload digests). */
  async reviseForThread(threadId: string, reason: string): Promise<ReviewItem[]> {
    return this.#revise(threadId, reason, this.#clock());
  }

  /** Queues get each revised item again (its new digest), as an update of the one they hold. */
  async #revise(threadId: string, reason: string, now: number): Promise<ReviewItem[]> {
    const revised = await this.#store.reviseForThread(threadId, now, reason);
    for (const item of revised) this.#emit(item, requestedEvent(item, now), "queue");
    return revised;
  }

  async claim(principal: Principal, interruptId: string, ttlMs: number = this.#claimTtlMs): Promise<Decision> {
    const now = this.#clock();
    const result = await this.#store.claim(interruptId, principal, ttlMs, now);
    if (result.ok) this.#emit(result.item, claimedEvent(result.item, now));
    return result;
  }

  async release(principal: Principal, interruptId: string): Promise<Decision> {
    const now = this.#clock();
    const result = await this.#store.release(interruptId, principal, now);
    if (result.ok && result.changed) this.#emit(result.item, releasedEvent(result.item, { sub: principal.sub, name: principal.name }, now));
    return result;
  }

  /**
   * Fires due timers first (expiry by policy also ends claims; escalations,
   * reminders), then frees lapsed claims; returns what the hub must resume.
   */
  async tick(now: number = this.#clock()): Promise<TickOutcome> {
    const timers = await this.#store.fireDueTimers(now);
    const expired: ExpiredItem[] = [];
    for (const fired of timers) expired.push(...this.#announceTimers(fired, now));
    const runs = new Map(expired.map(({ item }) => [item.runId, item.threadId]));
    const claimsLapsed = await this.#store.expireClaims(now);
    for (const { item, holder } of claimsLapsed) this.#emit(item, releasedEvent(item, holder, now));
    return { expired, timers, claimsLapsed, resumes: await this.#resumes(runs, now) };
  }

  /**
   * One event per timer that fired, in order. Several escalation steps fired
   * at once (after a restart) are announced step by step, each with the
   * routing it led to. A `keep` deadline is audited, not announced: the item
   * stays in every inbox, marked overdue.
   */
  #announceTimers({ before, item, fired }: FiredTimers, now: number): ExpiredItem[] {
    const expired: ExpiredItem[] = [];
    const steps = fired.flatMap((t) => (t.kind === "escalated" ? [t] : []));
    let shown = before;
    for (const timer of fired) {
      switch (timer.kind) {
        case "expired":
          this.#emit(item, expiredEvent(item, timer.action, now));
          expired.push({ item, action: timer.action });
          break;
        case "overdue":
          break;
        case "escalated": {
          const to = steps[steps.indexOf(timer) + 1]?.from ?? item.routing;
          const at: ReviewItem = { ...item, routing: { ...item.routing, queue: to.queue, users: [...to.users], roles: [...to.roles] } };
          this.#emit(at, escalatedEvent(at, timer.step, timer.from, now), "all", shown);
          shown = at;
          break;
        }
        case "reminded":
          this.#emit(item, reminderEvent(item, timer.count, now));
          break;
        default:
          assertNever(timer, "review timer");
      }
    }
    return expired;
  }

  /** Cancels the run's pending items (run cancelled, failed or replaced) and announces each with input.cancelled. */
  async cancelForRun(runId: string, reason?: string): Promise<ReviewItem[]> {
    const now = this.#clock();
    return this.#announceCancelled(await this.#store.cancelForRun(runId, now, reason), reason, now);
  }

  async cancelForThread(threadId: string, reason?: string): Promise<ReviewItem[]> {
    const now = this.#clock();
    return this.#announceCancelled(await this.#store.cancelForThread(threadId, now, reason), reason, now);
  }

  #announceCancelled(items: ReviewItem[], reason: string | undefined, now: number): ReviewItem[] {
    for (const item of items) this.#emit(item, cancelledEvent(item, reason ?? DEFAULT_CANCEL_REASON, now));
    return items;
  }

  /** Items of the run still waiting for an answer. */
  async pendingForRun(run: RunRef): Promise<ReviewItem[]> {
    return this.#store.listItems({ tenant: run.tenant, runId: run.runId, status: PENDING_STATUSES });
  }

  /** True when no interrupt of the run is pending: every one is answered, expired or cancelled. */
  async allSettled(run: RunRef): Promise<boolean> {
    return (await this.pendingForRun(run)).length === 0;
  }

  /** Takes the run's resume if due under its thread's policy (e.g. after a hub restart). */
  async resumeIfReady(runId: string, threadId: string): Promise<ResumeBatch | null> {
    return this.#store.takeResume(runId, this.#policy(threadId), this.#clock(), this.#newRunId());
  }

  /** Batches a resume run took and has not applied (it crashed in between): what a restart or takeover runs again. */
  unappliedResumes(): Promise<ResumeBatch[]> {
    return this.#store.unappliedResumes();
  }

  /** The resume run applied its batch (its resumed step is checkpointed, or it ended). */
  markApplied(resumeRunId: string): Promise<void> {
    return this.#store.markApplied(resumeRunId, this.#clock());
  }

  /** Queue view: pending items the principal may answer now, or could once a claim ends. */
  async openItemsFor(principal: Principal, queue: string): Promise<ReviewItem[]> {
    const now = this.#clock();
    const items = await this.#store.listItems({ tenant: principal.tenant, ...(queue === ALL_QUEUES ? {} : { queue }), status: PENDING_STATUSES });
    return items.filter((item) => {
      const verdict = mayAnswer(principal, item, now);
      return verdict.ok || verdict.code === "claim_held";
    });
  }

  /** One item with (a page of) its audit trail, if the principal may see it. */
  async review(principal: Principal, interruptId: string, page?: AuditPage): Promise<{ ok: true; item: ReviewItem; audit: AuditEntry[] } | Refusal> {
    const item = await this.#store.getItem(interruptId);
    // Another tenant's item is reported as unknown, so ids do not leak across tenants.
    if (item === undefined || item.tenant !== principal.tenant) {
      return { ok: false, code: "unknown_interrupt", message: `no review item for interrupt ${interruptId}` };
    }
    const verdict = mayView(principal, item);
    if (!verdict.ok) return verdict;
    return { ok: true, item, audit: await this.#store.auditOf(interruptId, page) };
  }

  /** Every review item of the thread (any status, oldest first) that the principal may read. */
  async reviewsOnThread(principal: Principal, threadId: string): Promise<ReviewItem[]> {
    const items = await this.#store.listItems({ tenant: principal.tenant, threadId });
    return items.filter((item) => mayView(principal, item).ok);
  }

  /** When tick() next has something to do (epoch ms), or null. */
  async nextDeadline(): Promise<number | null> {
    const at = await this.#store.nextDeadline();
    return at === null ? null : Date.parse(at);
  }

}
