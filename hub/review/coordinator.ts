/**
 * The hub's review wiring: every `input.requested` a run publishes becomes a
 * review item; answers, claims and releases go through the ReviewService
 * (first authorized answer wins, in the store); the resume batches it hands
 * out are run through the RunManager — each exactly once. Review events are
 * published to the thread's log (thread subscribers) and to queue
 * subscribers. One timer drives claim and item expiry.
 */
import type { Principal } from "../auth/index.ts";
import type { Logger } from "../logger.ts";
import { SwitchboardError, assertNever, type ProtocolEvent, type QuorumProgressData } from "../protocol/index.ts";
import { claimedEvent, progressJson, requestedEvent, type ReviewEvent } from "./events.ts";
import { activeClaim } from "./policy.ts";
import type { VoteOutcome } from "./quorum.ts";
import type { RoutingHook } from "./routing.ts";
import { ReviewService, type AnswerInput } from "./service.ts";
import type { ReviewStore } from "./store.ts";
import { PENDING_STATUSES, type ExpiryPolicy, type ReassignTarget, type Refusal, type ResumeBatch, type ResumePolicy, type ReviewItem } from "./types.ts";
import type { ExecutionResult, HubStore, RunInfo, RunManager, RunObserver } from "../runs/index.ts";
import type { EventBus, EventTransformer, ThreadLogs } from "../threads/index.ts";
import { QueueFanout } from "./queues.ts";
import type { AuditExportFilter, AuditRecord } from "./audit-export.ts";
import { reviewWebhookEvent, runWebhookEvent, type WebhookEventInput } from "./webhooks/events.ts";

/** Hub configuration of review routing (`HubConfig.review`). */
export interface ReviewConfig {
  /** Queue of items whose payload names none (default "default"). */
  defaultQueue?: string;
  /** Routing for graphs you don't control; the payload's `review` field still wins. */
  routingHook?: RoutingHook;
  /** Default deadline of every item (ms or "30m"); none when omitted. */
  expiresIn?: number | string;
  /** Roles that may answer over another's claim (default ["review-admin"]; `admin` always may). */
  overrideRoles?: readonly string[];
  /**
   * Expiry policy of items whose routing hook and payload set none (default:
   * none — the item expires and its run stays interrupted). `{ action: "keep" }`,
   * `{ action: "default", response }` or `{ action: "deny", reason? }`.
   */
  onExpire?: ExpiryPolicy;
  /** Lease of `input.claim` without `ttl_ms` (default 5 min). */
  claimTtlMs?: number;
  /** Epoch ms; tests inject one and call `tick()`. */
  clock?: () => number;
}

/** Threads whose assistant is remembered for queue copies (the store answers the rest). */
const ASSISTANT_CACHE_SIZE = 10_000;

/** Thread metadata key (and `run.start` param) of the resume policy: "batch" (default) or "eager". */
export const RESUME_POLICY_KEY = "review_policy";

export function resumePolicyOf(value: unknown): ResumePolicy | undefined {
  return value === "eager" || value === "batch" ? value : undefined;
}

export interface AnswerOutcome {
  /** The accepted items, in input order. */
  items: ReviewItem[];
  /** The accepted answers that were votes on quorum items: where each stands now. */
  votes: Array<{ interrupt_id: string; verdict: "approve" | "reject"; outcome: VoteOutcome; progress: QuorumProgressData }>;
  /** Resume runs started (or queued) by these answers. */
  runIds: string[];
}

interface CoordinatorOptions {
  reviewStore: ReviewStore;
  hubStore: HubStore;
  runs: RunManager;
  logs: ThreadLogs;
  logger: Logger;
  config: ReviewConfig;
  /** Open dev mode: every request is the same principal, who may approve their own runs. */
  openMode: boolean;
  /** One of several nodes (runs hold leases). */
  cluster?: boolean;
  /** The hub's transformEvent, applied to review events that leave other than through a thread's log. */
  transform?: EventTransformer | undefined;
  /** Several nodes: queue subscribers of every node hear every node's review events through the bus. */
  bus?: EventBus | undefined;
  nodeId?: string;
  /** Webhooks: every review event published here and every run end (the dispatcher filters per endpoint). */
  webhooks?: { publish(event: WebhookEventInput): Promise<void> } | undefined;
}

/**
 * After the store failed (Postgres down, a dropped connection), how long until
 * a tick or a resume hand-off is tried again; doubled per failure, up to the max.
 */
export const RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** The bus topic of review events for queue subscribers (one for every tenant: few, small messages). */
const REVIEWS_TOPIC = "reviews";

/** A review event as another node's queue subscribers get it. */
interface QueueMessage {
  from: string;
  item: ReviewItem;
  /** The item before the event re-routed it (see ReviewEvent.before). */
  before?: ReviewItem;
  event: ProtocolEvent;
  assistant: string | null;
}

export class ReviewCoordinator implements RunObserver {
  readonly service: ReviewService;
  readonly queues = new QueueFanout();
  readonly #o: CoordinatorOptions;
  readonly #clock: () => number;
  readonly #policies = new Map<string, ResumePolicy>();
  /** Assistant of each thread that raised an item lately (for queue copies' `review` field); bounded. */
  readonly #assistants = new Map<string, string | null>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt: number | undefined;
  #closed = false;
  #unsubscribe: (() => void) | undefined;
  /** Resume hand-offs waiting to be tried again, by resume run id. */
  readonly #retries = new Map<string, NodeJS.Timeout>();

  constructor(options: CoordinatorOptions) {
    this.#o = options;
    const { config } = options;
    this.#clock = config.clock ?? Date.now;
    const userHook = config.routingHook;
    const hook: RoutingHook | undefined = options.openMode
      ? (ctx) => ({ allowSelfApproval: true, ...userHook?.(ctx) })
      : userHook;
    this.service = new ReviewService({
      store: options.reviewStore,
      routing: {
        queue: config.defaultQueue ?? "default",
        ...(hook ? { hook } : {}),
        ...(config.expiresIn === undefined ? {} : { expiresIn: config.expiresIn }),
        ...(config.overrideRoles ? { overrideRoles: config.overrideRoles } : {}),
        ...(config.onExpire === undefined ? {} : { onExpire: config.onExpire }),
      },
      clock: this.#clock,
      onEvent: (event) => this.#onEvent(event),
      resumePolicy: (threadId) => this.#policies.get(threadId) ?? "batch",
      ...(config.claimTtlMs === undefined ? {} : { claimTtlMs: config.claimTtlMs }),
      logger: options.logger,
    });
  }

  /** Remembers a thread's policy (from `run.start`'s `review_policy` or thread metadata). */
  setPolicy(threadId: string, policy: ResumePolicy): void {
    this.#policies.set(threadId, policy);
  }

  // --- RunObserver -------------------------------------------------------

  /**
   * Stores the review item of every question in the batch before the run
   * publishes it: registering is part of publishing, so whoever sees the
   * question can answer it. A failure is logged; the run goes on.
   */
  async asking(run: RunInfo, events: readonly ProtocolEvent[]): Promise<void> {
    for (const event of events) {
      if (event.method !== "input.requested") continue;
      await this.#register(run, event).catch((error: unknown) => this.#o.logger.error(`review item for ${event.params.data.interrupt_id}: ${String(error)}`));
    }
  }

  async ended(run: RunInfo, result: ExecutionResult): Promise<void> {
    // A resume run that ended (not by a shutdown) consumed its answers: the record is done.
    // After a shutdown or crash it stays, and the next start runs the resume again.
    if (result.abort !== "shutdown") await this.service.markApplied(run.runId);
    // A run stopped by a shutdown goes on after the restart: it has not ended for the outside world.
    if (result.abort !== "shutdown") await this.#o.webhooks?.publish(runWebhookEvent(run, result.outcome.status, this.#clock(), result.outcome.error));
    // Pending unknown (the checkpoint could not be read): nothing is voided on a guess.
    const pending = result.pending;
    if (pending === null) {
      this.#schedule();
      return;
    }
    // Items the checkpoint no longer waits on (run completed, failed, cancelled, rolled back) are void.
    const open = await this.#o.reviewStore.listItems({ tenant: run.tenant, threadId: run.threadId, status: PENDING_STATUSES });
    // An action's item waits on its interrupt (the checkpoint knows the interrupt, not the item).
    const staleRuns = new Set(open.filter((item) => !pending.has(item.action?.interruptId ?? item.interruptId)).map((item) => item.runId));
    for (const runId of staleRuns) {
      // Its own questions end with the run; an earlier run's were replaced by this one (a fork, an edit of the state).
      await this.service.cancelForRun(runId, runId === run.runId ? `run ${result.outcome.status}` : `replaced by run ${run.runId}`);
    }
    this.#schedule();
  }

  /** The assistant a thread runs, as queue copies name it (cached from the item's registration). */
  assistantOf(threadId: string): string | null {
    return this.#assistants.get(threadId) ?? null;
  }

  /** The same, read from the store when not cached (queue snapshots of items from before a restart). */
  async loadAssistantOf(threadId: string, tenant: string): Promise<string | null> {
    if (this.#assistants.has(threadId)) return this.assistantOf(threadId);
    const thread = await this.#o.hubStore.getThread(threadId, tenant);
    this.#rememberAssistant(threadId, thread?.assistantId ?? null);
    return thread?.assistantId ?? null;
  }

  #rememberAssistant(threadId: string, assistantId: string | null): void {
    this.#assistants.delete(threadId);
    this.#assistants.set(threadId, assistantId);
    if (this.#assistants.size > ASSISTANT_CACHE_SIZE) this.#assistants.delete(this.#assistants.keys().next().value ?? "");
  }

  async #register(run: RunInfo, event: Extract<ProtocolEvent, { method: "input.requested" }>): Promise<void> {
    const thread = await this.#o.hubStore.getThread(run.threadId, run.tenant);
    this.#rememberAssistant(run.threadId, thread?.assistantId ?? null);
    if (!this.#policies.has(run.threadId)) {
      const policy = resumePolicyOf(thread?.metadata[RESUME_POLICY_KEY]);
      if (policy) this.#policies.set(run.threadId, policy);
    }
    const { item, items } = await this.service.onInterruptRequested({
      interruptId: event.params.data.interrupt_id,
      threadId: run.threadId,
      runId: run.runId,
      tenant: run.tenant,
      namespace: [...event.params.namespace],
      node: event.params.node ?? null,
      payload: event.params.data.payload,
      startedBy: run.startedBy,
    });
    // Published after this: the thread's subscribers see the digest an answer may carry back.
    // A multi-action interrupt has none of its own: each action item has its digest (queue copies, REST).
    if (items.length === 1 && item.interruptId === event.params.data.interrupt_id) (event.params.data as { payload_digest?: string }).payload_digest = item.payloadDigest;
    this.#schedule();
  }

  // --- Commands ----------------------------------------------------------

  /**
   * Answers (one or a batch). `threadId`: the command's thread; items of
   * other threads are unknown there. Throws the first refusal as a
   * SwitchboardError; accepted answers in the same batch stand.
   */
  async answer(principal: Principal, answers: readonly AnswerInput[], threadId: string | undefined): Promise<AnswerOutcome> {
    for (const { interruptId } of answers) await this.#assertKnown(principal, interruptId, threadId);
    const { results, resumes } = await this.service.answerBatch(principal, answers);
    const runIds = await this.#runResumes(resumes);
    this.#schedule();
    const items = results.flatMap((r) => (r.result.ok ? [r.result.item] : []));
    const votes = results.flatMap((r) => (r.result.ok && r.vote ? [{ interrupt_id: r.interruptId, verdict: r.vote.vote.verdict, outcome: r.vote.outcome, progress: progressJson(r.vote.progress) }] : []));
    const refused = results.find((r) => !r.result.ok);
    if (refused && !refused.result.ok) {
      const error = refusalError(refused.result, refused.interruptId);
      if (items.length === 0) throw error;
      // A batch is decided answer by answer: say which of its answers were accepted.
      throw new SwitchboardError(error.code, error.message, { ...error.details, accepted: items.map((i) => i.interruptId) });
    }
    return { items, runIds, votes };
  }

  /** Ids of the thread's items still waiting for an answer. */
  async pendingOnThread(tenant: string, threadId: string): Promise<string[]> {
    return (await this.#o.reviewStore.listItems({ tenant, threadId, status: PENDING_STATUSES })).map((i) => i.interruptId);
  }

  /**
   * A deleted thread's items: the pending ones are cancelled first (announced,
   * so inboxes drop them), then every item and its audit trail is removed.
   */
  async forgetThread(tenant: string, threadId: string): Promise<number> {
    void tenant;
    await this.service.cancelForThread(threadId, "the thread was deleted");
    return this.#o.reviewStore.deleteForThread(threadId);
  }

  /** One page of the tenant's audit lines for the export (the caller checked the role). */
  async exportAudit(filter: AuditExportFilter): Promise<AuditRecord[]> {
    return this.#o.reviewStore.exportAudit(filter);
  }

  /** Every review item the thread has had (any status), oldest first. */
  async itemsOnThread(tenant: string, threadId: string): Promise<ReviewItem[]> {
    return this.#o.reviewStore.listItems({ tenant, threadId });
  }

  /** Moves a pending item to another queue or candidates; throws the refusal. */
  async reassign(principal: Principal, interruptId: string, target: ReassignTarget, threadId: string | undefined): Promise<ReviewItem> {
    await this.#assertKnown(principal, interruptId, threadId);
    const result = await this.service.reassign(principal, interruptId, target);
    if (!result.ok) throw refusalError(result, interruptId);
    this.#schedule();
    return result.item;
  }

  /** The thread's state was edited while questions wait: each moves to its next revision (stale digests are refused). */
  async reviseThread(threadId: string, reason: string): Promise<ReviewItem[]> {
    return this.service.reviseForThread(threadId, reason);
  }

  async claim(principal: Principal, interruptId: string, ttlMs: number | undefined, threadId: string | undefined): Promise<ReviewItem> {
    await this.#assertKnown(principal, interruptId, threadId);
    const result = await this.service.claim(principal, interruptId, ttlMs);
    if (!result.ok) throw refusalError(result, interruptId);
    this.#schedule();
    return result.item;
  }

  async release(principal: Principal, interruptId: string, threadId: string | undefined): Promise<ReviewItem> {
    await this.#assertKnown(principal, interruptId, threadId);
    const result = await this.service.release(principal, interruptId);
    if (!result.ok) throw refusalError(result, interruptId);
    this.#schedule();
    return result.item;
  }

  /** Expires due items and lapsed claims, resumes what that makes due, re-arms the timer. */
  async tick(): Promise<void> {
    const { resumes } = await this.service.tick(this.#clock());
    await this.#runResumes(resumes);
    this.#schedule();
  }

  /** Arms the expiry timer for items a previous process stored; several nodes: hears the others' review events. */
  async start(): Promise<void> {
    this.#schedule();
    const bus = this.#o.bus;
    if (bus) this.#unsubscribe = await bus.subscribe(REVIEWS_TOPIC, (message) => this.#onRemote(message));
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const timer of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
  }

  /** Whether the expiry timer is armed (tests check it is gone after close). */
  get timerArmed(): boolean {
    return this.#timer !== undefined;
  }

  /** Unknown ids get the thread-level codes the protocol always used. */
  async #assertKnown(principal: Principal, interruptId: string, threadId: string | undefined): Promise<void> {
    // A multi-action interrupt's own id is known by its first action's item.
    const group = await this.service.actionGroup(principal, interruptId);
    const item = await this.#o.reviewStore.getItem(group === undefined ? interruptId : `${interruptId}.0`);
    // Without a thread (REST), the service refuses another tenant's item with permission_denied.
    if (item !== undefined && (threadId === undefined || (item.tenant === principal.tenant && item.threadId === threadId))) return;
    if (threadId === undefined) throw new SwitchboardError("no_such_interrupt", `no review item for interrupt ${interruptId}`);
    const pending = await this.#o.reviewStore.listItems({ tenant: principal.tenant, threadId, status: PENDING_STATUSES });
    if (pending.length === 0) throw new SwitchboardError("nothing_pending", "the thread has no pending interrupt to answer");
    throw new SwitchboardError("no_such_interrupt", `interrupt ${interruptId} is not pending on this thread`, { pending: pending.map((i) => i.interruptId) });
  }

  async #runResumes(batches: readonly ResumeBatch[]): Promise<string[]> {
    const runIds: string[] = [];
    for (const batch of batches) {
      const runId = await this.#resume(batch).catch((error: unknown) => {
        const retry = !(error instanceof ThreadGone);
        this.#o.logger.error(`resuming run ${batch.runId} of thread ${batch.threadId}: ${error instanceof Error ? error.message : String(error)}${retry ? `; trying again in ${RETRY_MS} ms` : ""}`);
        if (retry) this.#retryResume(batch, RETRY_MS);
        return undefined;
      });
      if (runId !== undefined) runIds.push(runId);
    }
    return runIds;
  }

  async #resume(batch: ResumeBatch): Promise<string | undefined> {
    if (Object.keys(batch.answers).length === 0) return undefined;
    const thread = await this.#o.hubStore.getThread(batch.threadId, batch.tenant);
    if (!thread) throw new ThreadGone(batch.threadId);
    // The resume runs on behalf of the run's starter, so self-approval rules keep applying to its next questions.
    const starter: Principal = { sub: batch.startedBy, name: batch.startedBy, tenant: batch.tenant, roles: [] };
    const run = await this.#o.runs.resumeReviewed(thread, batch, starter);
    return run.runId;
  }

  /**
   * At start: answers a resume run took but had not applied when its process
   * died. Each is applied once: only the interrupts the checkpoint still waits
   * on are resumed (the run, under its own id, continues); when the
   * checkpoint already holds them all, the run continues from there.
   */
  async recoverResumes(): Promise<string[]> {
    const resumed: string[] = [];
    for (const batch of await this.service.unappliedResumes()) {
      try {
        // Several nodes: a resume run still recorded as running holds a lease; its takeover continues it.
        const run = this.#o.cluster ? await this.#o.hubStore.getRun(batch.resumeRunId) : undefined;
        if (run && (run.status === "running" || run.status === "pending")) continue;
        const thread = await this.#o.hubStore.getThread(batch.threadId, batch.tenant);
        const pending = thread ? await this.#o.runs.pendingOf(thread) : new Set<string>();
        const answers = Object.fromEntries(Object.entries(batch.answers).filter(([id]) => pending.has(id)));
        if (!thread) {
          await this.service.markApplied(batch.resumeRunId);
          continue;
        }
        if (Object.keys(answers).length === 0) {
          // The checkpoint holds every answer: the resumed step was done; the run died in a later one.
          await this.service.markApplied(batch.resumeRunId);
          const continued = await this.#o.runs.continueRun(thread, batch.resumeRunId, batch.startedBy);
          if (continued) resumed.push(continued.runId);
          continue;
        }
        const runId = await this.#resume({ ...batch, answers });
        if (runId !== undefined) resumed.push(runId);
      } catch (error) {
        this.#o.logger.error(`re-applying the answers taken by run ${batch.resumeRunId}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return resumed;
  }

  /** A resume taken for the thread whose run never started (the thread was busy), oldest first. */
  async waitingResume(threadId: string): Promise<ResumeBatch | undefined> {
    for (const batch of await this.service.unappliedResumes()) {
      if (batch.threadId !== threadId) continue;
      const run = await this.#o.hubStore.getRun(batch.resumeRunId);
      if (run === undefined || run.status === "pending") return batch;
    }
    return undefined;
  }

  /** The answers a resume run took and has not applied yet (a takeover continues it with them). */
  async resumeOf(runId: string): Promise<ResumeBatch | undefined> {
    return (await this.service.unappliedResumes()).find((b) => b.resumeRunId === runId);
  }

  /**
   * The hub's `transformEvent` on a review event that leaves other than
   * through the thread's log (queue copies, webhooks, snapshots): the same
   * redaction, or null (dropped; a hook that throws drops it, as the log does).
   */
  redact(event: ProtocolEvent, threadId: string): ProtocolEvent | null {
    const transform = this.#o.transform;
    if (transform === undefined) return event;
    try {
      return transform(event, threadId);
    } catch {
      return null;
    }
  }

  /**
   * How an open item appears to a queue that gets it now (a snapshot, or an
   * item re-routed into the queue): its `input.requested`, and
   * `input.claimed` while a claim holds it — redacted like every review event.
   */
  appearance(item: ReviewItem, now: number): ProtocolEvent[] {
    return [requestedEvent(item, now), ...(activeClaim(item, now) ? [claimedEvent(item, now)] : [])].flatMap((e) => this.redact(e, item.threadId) ?? []);
  }

  #onEvent({ item, audience, event, before }: ReviewEvent): void {
    let sent: ProtocolEvent | null;
    // The thread's subscribers get it through the log (with the thread's next seq);
    // with several nodes, through the bus, whichever node runs the thread.
    const log = audience === "all" ? this.#o.logs.get(item.threadId) : undefined;
    if (log && !log.onBus) {
      // The log applied transformEvent.
      const [entry] = log.publish([event]);
      sent = entry?.event ?? null;
    } else {
      if (audience === "all") this.#o.logs.send(item.threadId, [event])?.catch(() => undefined);
      sent = this.redact(event, item.threadId);
    }
    // Dropped by transformEvent: no queue, webhook or other node hears it either.
    if (sent === null) return;
    this.#deliverToQueues(item, sent, before);
    // Only the node that decided publishes (others hear it through #onRemote): one webhook per event.
    void this.#o.webhooks?.publish(reviewWebhookEvent(item, sent));
    const bus = this.#o.bus;
    if (bus) {
      const message: QueueMessage = { from: this.#o.nodeId ?? "", item, event: sent, assistant: this.assistantOf(item.threadId), ...(before ? { before } : {}) };
      bus.publish(REVIEWS_TOPIC, JSON.stringify(message)).catch((error: unknown) => this.#o.logger.error(`review event of ${item.interruptId} to other nodes: ${String(error)}`));
    }
  }

  /** A re-routing event also reaches the subscribers of where the item was, and shows it as new where it now is. */
  #deliverToQueues(item: ReviewItem, event: ProtocolEvent, before: ReviewItem | undefined): void {
    if (before === undefined) this.queues.deliver(item, event);
    else {
      this.queues.deliverMove(before, item, event, this.appearance(item, event.params.timestamp));
    }
  }

  /** Another node's review event: its queue subscribers here hear it as if it were ours. */
  #onRemote(text: string): void {
    try {
      const message = JSON.parse(text) as QueueMessage;
      if (message.from === this.#o.nodeId || this.#closed) return;
      if (message.assistant !== null && !this.#assistants.has(message.item.threadId)) this.#rememberAssistant(message.item.threadId, message.assistant);
      this.#deliverToQueues(message.item, message.event, message.before);
    } catch (error) {
      this.#o.logger.error(`a review event from another node: ${String(error)}`);
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    this.service
      .nextDeadline()
      .then((at) => {
        if (this.#closed) return;
        if (at === null) {
          if (this.#timer) clearTimeout(this.#timer);
          this.#timer = undefined;
          this.#timerAt = undefined;
          return;
        }
        if (this.#timer && this.#timerAt === at) return;
        if (this.#timer) clearTimeout(this.#timer);
        this.#timerAt = at;
        const delay = Math.min(Math.max(0, at - this.#clock()), 2 ** 31 - 1);
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#timerAt = undefined;
          this.tick().catch((error: unknown) => {
            this.#o.logger.error(`review tick: ${String(error)}; trying again in ${RETRY_MS} ms`);
            this.#armRetry();
          });
        }, delay);
        this.#timer.unref();
      })
      .catch((error: unknown) => {
        this.#o.logger.error(`review deadline: ${String(error)}; trying again in ${RETRY_MS} ms`);
        this.#armRetry();
      });
  }

  /** The store failed to tick or to say the next deadline: a due claim, expiry or escalation is not dropped, it is tried again. */
  #armRetry(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timerAt = undefined;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, RETRY_MS);
    this.#timer.unref();
  }

  /**
   * A resume whose start failed (the store was down) is tried again, with
   * backoff, until it starts or its answers no longer wait (applied, or the
   * thread is gone): an accepted answer is never left without its resume
   * until the next restart. Safe to repeat: a failed start launched nothing,
   * and the resume keeps its run id.
   */
  #retryResume(batch: ResumeBatch, delay: number): void {
    if (this.#closed || this.#retries.has(batch.resumeRunId)) return;
    const timer = setTimeout(() => {
      this.#retries.delete(batch.resumeRunId);
      void this.#resumeAgain(batch).then((done) => {
        if (!done) this.#retryResume(batch, Math.min(delay * 2, MAX_RETRY_MS));
      });
    }, delay);
    timer.unref();
    this.#retries.set(batch.resumeRunId, timer);
  }

  /** One more try of a resume hand-off; true when nothing is left to try. */
  async #resumeAgain(batch: ResumeBatch): Promise<boolean> {
    if (this.#closed) return true;
    try {
      const waiting = (await this.service.unappliedResumes()).find((b) => b.resumeRunId === batch.resumeRunId);
      if (waiting === undefined) return true;
      await this.#resume(waiting);
      this.#o.logger.info(`resumed run ${batch.runId} of thread ${batch.threadId} (run ${batch.resumeRunId}) on a later try`);
      return true;
    } catch (error) {
      if (error instanceof ThreadGone) {
        await this.service.markApplied(batch.resumeRunId).catch(() => undefined);
        return true;
      }
      this.#o.logger.error(`resuming run ${batch.runId} of thread ${batch.threadId} again: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}

/** The thread of a resume was deleted: nothing is left to resume. */
class ThreadGone extends Error {
  constructor(threadId: string) {
    super(`thread ${threadId} is gone`);
  }
}

/** A refusal as a wire error; already_answered names the winner and time. */
export function refusalError(refusal: Refusal, interruptId: string): SwitchboardError {
  switch (refusal.code) {
    case "already_answered":
      return new SwitchboardError("already_answered", refusal.message, {
        interrupt_id: interruptId,
        winner: { ...refusal.winner },
        answered_by: { ...refusal.winner },
        answered_at: Date.parse(refusal.answeredAt),
      });
    case "claim_held":
      return new SwitchboardError("claim_held", refusal.message, { interrupt_id: interruptId, claimed_by: { ...refusal.claimedBy }, expires_at: Date.parse(refusal.until) });
    case "already_voted":
      return new SwitchboardError("already_voted", refusal.message, { interrupt_id: interruptId, voted_at: Date.parse(refusal.votedAt), verdict: refusal.verdict });
    case "unknown_interrupt":
      return new SwitchboardError("no_such_interrupt", refusal.message, { interrupt_id: interruptId });
    case "permission_denied":
    case "interrupt_expired":
    case "interrupt_cancelled":
    case "invalid_argument":
    case "stale_payload":
      return new SwitchboardError(refusal.code, refusal.message, { interrupt_id: interruptId });
    default:
      return assertNever(refusal, "review refusal");
  }
}
