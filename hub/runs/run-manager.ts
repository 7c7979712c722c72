/**
 * RunManager: one active run per thread. Decides what a `run.start`, a
 * reviewed resume (hub/review) or `run.cancel` does given the thread's state (new run,
 * resume, multitask strategy), keeps run and thread records in the hub store,
 * and runs independently of any client connection.
 */
import { nanoid } from "nanoid";
import type { Checkpointer } from "../../engine/index.ts";
import type { Assistant, AssistantRegistry } from "./assistants.ts";
import { canPerform, type Principal } from "../auth/index.ts";
import type { HubMetrics } from "../metrics.ts";
import type { Logger } from "../logger.ts";
import { SwitchboardError, assertNever, utf8Bytes, type ProtocolEvent } from "../protocol/index.ts";
import { HubRecordExistsError } from "./records.ts";
import { type HubStore, type MultitaskStrategy, type RunRecord, type ThreadRecord, type ThreadStatus } from "./store.ts";
import type { ThreadLog, ThreadLogs, ThreadSeed } from "../threads/index.ts";
import { resumeMapOf, type ResumeOrder } from "./answers.ts";
import { RunAbort, executeRun, pendingIds, readHead, type ExecutionResult, type RunOptions, type RunPlan } from "./execute.ts";
import type { LeaseHolder, TakenLease } from "./leases.ts";
import type { HeldLease, RunOwnership } from "./ownership.ts";
import { NodeUnreachableError, type RunControl, type StopOutcome, type StopReason } from "./control.ts";
import { RunWaiters } from "./waiters.ts";
import { seedOf } from "./seed.ts";

/** The facts of a run the review wiring needs; `startedBy` is who began the chain of runs. */
export interface RunInfo {
  runId: string;
  threadId: string;
  tenant: string;
  startedBy: string;
}

/** Hears the questions runs ask and how runs end (the hub's review wiring). */
export interface RunObserver {
  /** Awaited before the batch (which has `input.requested` events) is published: store the review items. */
  asking(run: RunInfo, events: readonly ProtocolEvent[]): Promise<void>;
  /** Awaited before the thread takes its next run; must not throw. */
  ended(run: RunInfo, result: ExecutionResult): Promise<void>;
}

export interface RunManagerOptions {
  store: HubStore;
  checkpointer: Checkpointer;
  assistants: AssistantRegistry;
  logs: ThreadLogs;
  metrics: HubMetrics;
  /** This node's name, stamped on the runs it runs (`node_id`). */
  nodeId: string;
  onError?: (error: unknown, context: string) => void;
  /** Run start and end (ids, status, duration, the error's message): never input or answers. */
  logger?: Logger;
  /** Largest id of a thread a client creates, in bytes (HubLimits.maxIdBytes). */
  maxIdBytes?: number;
  /**
   * Where a pending interrupt was asked (its namespace and node), as first
   * published: the checkpoint alone cannot say for one raised inside a subgraph.
   * Used to rebuild `input.requested` after a restart.
   */
  originOf?: (threadId: string, interruptId: string) => Promise<{ namespace: readonly string[]; node: string | null; payloadDigest?: string } | undefined>;
  /** Several nodes: runs hold the thread's lease; dead nodes' runs are taken over. */
  ownership?: RunOwnership;
  /** Several nodes: the resume a run that is taken over should continue with, if it was one. */
  resumeOf?: (runId: string) => Promise<ResumeOrder | undefined>;
  /**
   * Several nodes: resumes taken while another run held the thread, run once
   * it is free (the node that ends a run starts the first waiting one).
   */
  waitingResume?: (threadId: string) => Promise<(ResumeOrder & { startedBy: string }) | undefined>;
  /** Several nodes: run commands for runs another node executes, and "the thread is free" when a run ends. */
  control?: RunControl;
}

export interface StartRequest {
  assistantId: string;
  input: unknown;
  strategy: MultitaskStrategy;
  /** Fork: run from this checkpoint of the thread instead of its latest. */
  checkpointId?: string | undefined;
  /** Per-run static breakpoints and checkpoint metadata (LangGraph run options). */
  options?: RunOptions | undefined;
}

interface ActiveRun {
  runId: string;
  controller: AbortController;
  done: Promise<ExecutionResult>;
  /** The head checkpoint when the run began, for `rollback`. */
  startCheckpointId: string | undefined;
  /** Several nodes: the thread's lease this run holds. */
  held: HeldLease | undefined;
}

/** A new run's request, or the answers of a resume that came while the thread was busy. */
type QueuedWork = { kind: "start"; request: StartRequest } | { kind: "resume"; order: ResumeOrder };

interface QueuedRun {
  record: RunRecord;
  work: QueuedWork;
  principal: Principal;
}

export class RunManager {
  readonly #o: RunManagerOptions;
  readonly #active = new Map<string, ActiveRun>();
  readonly #queued = new Map<string, QueuedRun[]>();
  readonly #serial = new Map<string, Promise<unknown>>();
  /** Who waits for a run to reach a final status (runs.join / runs.wait). */
  readonly #waiters = new RunWaiters();
  #closing = false;
  #observer: RunObserver | undefined;
  /** Several nodes: retries queued runs whose thread another node runs (in case its "free" was lost). */
  #queueRetry: NodeJS.Timeout | undefined;

  /** Waits for the bus, each told when close() begins (see #drained). */
  readonly #closeWaiters = new Set<() => void>();

  constructor(options: RunManagerOptions) {
    this.#o = options;
  }

  /** Several nodes: answers the other nodes' run commands (stop a run here; a thread is free). */
  async listen(): Promise<void> {
    await this.#o.control?.start({
      stop: (threadId, runId, reason) => this.#stopHere(threadId, runId, reason),
      unqueue: (threadId, runId) => this.#unqueueHere(threadId, runId),
      threadFree: (threadId) => this.#onThreadFree(threadId),
    });
  }

  /** Set once by the hub, after the review wiring that needs this manager exists. */
  observe(observer: RunObserver): void {
    this.#observer = observer;
  }

  /**
   * The thread as this principal's tenant sees it; created when `create`, missing, and the
   * principal may start runs. Ids are unique across the hub, so creating one takes it from
   * every tenant: an observer or reviewer who subscribes to a missing id gets not_found and
   * creates nothing (else any tenant's observer could take ids another tenant will use).
   */
  async ensureThread(threadId: string, principal: Principal, create: boolean): Promise<ThreadRecord> {
    const found = await this.#o.store.getThread(threadId, principal.tenant);
    if (found) return found;
    if (!create || !canPerform(principal, "operate")) throw notFound(threadId);
    const bytes = utf8Bytes(threadId);
    const maxIdBytes = this.#o.maxIdBytes ?? Number.POSITIVE_INFINITY;
    if (bytes > maxIdBytes) throw new SwitchboardError("payload_too_large", `thread_id is ${bytes} bytes; the limit is ${maxIdBytes} (maxIdBytes)`, { limit: maxIdBytes });
    try {
      return await this.#o.store.createThread({ threadId, tenant: principal.tenant, assistantId: null, status: "idle", metadata: {} });
    } catch (error) {
      if (error instanceof HubRecordExistsError) {
        // Created meanwhile by a concurrent request (on any node) — or the id is taken in
        // another tenant, which is indistinguishable from "no such thread".
        const raced = await this.#o.store.getThread(threadId, principal.tenant);
        if (raced) return raced;
        throw notFound(threadId);
      }
      throw error;
    }
  }

  /** The thread's event log; a thread with state from an earlier process is seeded from it. */
  openLog(thread: ThreadRecord): Promise<ThreadLog> {
    return this.#o.logs.open(thread.threadId, () => seedOf(thread, this.#o));
  }

  /**
   * The thread's baseline read from the checkpoint, by id alone (the tenant is
   * its runs'): for a node that must restore a thread's stream on the bus
   * without its log open here. null: no run, no thread, or no state.
   */
  async seedOfThread(threadId: string): Promise<ThreadSeed | null> {
    const [run] = await this.#o.store.listRuns(threadId, { limit: 1 });
    const thread = run && (await this.#o.store.getThread(threadId, run.tenant));
    return thread ? seedOf(thread, this.#o) : null;
  }

  /** Interrupt ids the thread's latest checkpoint waits on (none for a thread that never ran). */
  async pendingOf(thread: ThreadRecord): Promise<Set<string>> {
    const assistant = thread.assistantId === null ? undefined : this.#o.assistants.get(thread.assistantId);
    return assistant ? pendingIds(assistant, thread.threadId) : new Set();
  }

  isBusy(threadId: string): boolean {
    return this.#active.has(threadId);
  }

  async start(thread: ThreadRecord, request: StartRequest, principal: Principal): Promise<RunRecord> {
    const assistant = this.#o.assistants.get(request.assistantId);
    if (!assistant) throw new SwitchboardError("not_found", `no assistant named "${request.assistantId}"`);
    if (thread.assistantId !== null && thread.assistantId !== assistant.id) {
      throw new SwitchboardError("invalid_argument", `thread ${thread.threadId} belongs to assistant "${thread.assistantId}"`);
    }
    return this.#serially(thread.threadId, async () => {
      this.#assertOpen();
      const log = await this.openLog(thread);
      const active = this.#active.get(thread.threadId);
      let forkFrom: string | undefined;
      const remote = active ? undefined : await this.#remoteHolder(thread.threadId);
      if (remote) {
        // Several nodes: the thread's run executes on another node.
        switch (request.strategy) {
          case "reject":
            throw busyOn(thread.threadId, remote);
          case "enqueue": {
            const queued = await this.#enqueue(thread, assistant.id, { kind: "start", request }, principal);
            this.#retryQueued();
            return queued;
          }
          case "interrupt":
          case "rollback": {
            const outcome = await this.#stopThere(remote, thread.threadId, request.strategy);
            if (request.strategy === "rollback" && outcome.found) {
              forkFrom = outcome.startCheckpointId;
              if (forkFrom === undefined) await this.#o.checkpointer.deleteThread(thread.threadId);
            }
            break;
          }
          default:
            assertNever(request.strategy, "multitask strategy");
        }
      } else if (active) {
        switch (request.strategy) {
          case "reject":
            throw new SwitchboardError("thread_busy", `thread ${thread.threadId} has an active run (${active.runId})`, { run_id: active.runId });
          case "enqueue":
            return this.#enqueue(thread, assistant.id, { kind: "start", request }, principal);
          case "interrupt":
            active.controller.abort(new RunAbort("cancelled", `interrupted by a new run (multitask strategy "interrupt")`));
            await active.done;
            break;
          case "rollback":
            active.controller.abort(new RunAbort("cancelled", `rolled back by a new run (multitask strategy "rollback")`));
            await active.done;
            forkFrom = active.startCheckpointId;
            if (forkFrom === undefined) await this.#o.checkpointer.deleteThread(thread.threadId);
            break;
          default:
            assertNever(request.strategy, "multitask strategy");
        }
      }
      if (request.checkpointId !== undefined && forkFrom === undefined) {
        const at = await assistant.graph.getState(thread.threadId, { checkpointId: request.checkpointId });
        if (at.config === undefined) throw new SwitchboardError("no_such_checkpoint", `thread ${thread.threadId} has no checkpoint ${request.checkpointId}`);
        forkFrom = request.checkpointId;
      }
      const plan = { ...(await this.#plan(thread, assistant, request.input, forkFrom)), ...(request.options ? { options: request.options } : {}) };
      // A run stopped on another node let go of the lease before it answered; a little wait covers its queued successors there.
      const token = await this.#claim(thread.threadId, plan.runId, remote ? RESUME_CLAIM_WAIT_MS : 0);
      const record = await this.#o.store.createRun({
        runId: plan.runId,
        threadId: thread.threadId,
        tenant: thread.tenant,
        assistantId: assistant.id,
        status: "running",
        startedBy: principal.sub,
        multitaskStrategy: request.strategy,
        input: request.input ?? null,
        nodeId: this.#o.nodeId,
      });
      await this.#launch(thread, plan, log, principal.sub, token);
      return record;
    });
  }

  /**
   * A resume the review service decided (each answer already checked,
   * authorized, announced and taken into `order`, the durable record this run
   * consumes): runs now, or queued while the thread is busy. The run's id is
   * the order's, so a run record left by a crash is continued, not duplicated.
   * `starter` is who started the interrupted run; the resume keeps it.
   */
  async resumeReviewed(thread: ThreadRecord, order: ResumeOrder, starter: Principal): Promise<RunRecord> {
    return this.#serially(thread.threadId, async () => {
      this.#assertOpen();
      const assistant = this.#assistantOf(thread);
      const log = await this.openLog(thread);
      if (this.#active.has(thread.threadId)) return this.#enqueue(thread, assistant.id, { kind: "resume", order }, starter, order.resumeRunId);
      const plan = await this.#resumePlan(thread, assistant, log, order);
      const token = await this.#claim(thread.threadId, plan.runId, RESUME_CLAIM_WAIT_MS);
      const record = await this.#recordRun(thread, assistant.id, plan.runId, starter.sub);
      await this.#launch(thread, plan, log, starter.sub, token);
      return record;
    });
  }

  /**
   * Continues a run a dead process left unfinished, under its own id, from
   * the thread's last checkpoint: tasks that finished there are not run again.
   * Does nothing (returns undefined) when the thread is busy, waits on
   * interrupts, or has nothing left to run.
   */
  async continueRun(thread: ThreadRecord, runId: string, startedBy: string): Promise<RunRecord | undefined> {
    return this.#serially(thread.threadId, async () => {
      this.#assertOpen();
      if (this.#active.has(thread.threadId)) return undefined;
      const assistant = this.#assistantOf(thread);
      const state = await assistant.graph.getState(thread.threadId);
      if (state.config === undefined || state.interrupts.length > 0 || state.next.length === 0) return undefined;
      const log = await this.openLog(thread);
      const token = await this.#claim(thread.threadId, runId);
      const record = await this.#recordRun(thread, assistant.id, runId, startedBy);
      await this.#launch(thread, { runId, threadId: thread.threadId, assistant, input: null, headCheckpointId: state.config.checkpointId }, log, startedBy, token);
      return record;
    });
  }

  /** A resume run's record: created, or (its earlier attempt died) set running again. */
  async #recordRun(thread: ThreadRecord, assistantId: string, runId: string, startedBy: string): Promise<RunRecord> {
    const existing = await this.#o.store.getRun(runId);
    if (existing !== undefined) return (await this.#o.store.updateRun(runId, { status: "running", error: null, nodeId: this.#o.nodeId })) ?? existing;
    return this.#o.store.createRun({ runId, threadId: thread.threadId, tenant: thread.tenant, assistantId, status: "running", startedBy, multitaskStrategy: "reject", input: null, nodeId: this.#o.nodeId });
  }

  /** Cancels the active run, or a queued one by id. */
  async cancel(thread: ThreadRecord, runId?: string): Promise<RunRecord> {
    const active = this.#active.get(thread.threadId);
    if (active && (runId === undefined || runId === active.runId)) {
      active.controller.abort(new RunAbort("cancelled", "run cancelled by run.cancel"));
      await active.done;
      return this.#mustGetRun(active.runId);
    }
    if (runId !== undefined && (await this.#unqueueHere(thread.threadId, runId))) return this.#mustGetRun(runId);
    // Several nodes: the run may execute on another node; that node stops it.
    const remote = active ? undefined : await this.#remoteHolder(thread.threadId);
    if (remote && (runId === undefined || runId === remote.runId)) {
      const outcome = await this.#stopThere(remote, thread.threadId, "cancelled");
      if (outcome.found) return this.#mustGetRun(remote.runId);
    }
    // Several nodes: a run queued on another node (its record is pending there); that node cancels it.
    if (runId !== undefined && this.#o.control) {
      const record = await this.#o.store.getRun(runId);
      if (record?.threadId === thread.threadId && record.status === "pending") {
        const outcome = await this.#o.control.unqueue(thread.threadId, runId, 5_000);
        if (outcome.found) return this.#mustGetRun(runId);
      }
    }
    throw new SwitchboardError("no_such_run", runId === undefined ? `thread ${thread.threadId} has no active run` : `run ${runId} is not active or queued on this thread`);
  }

  /**
   * Removes the thread and everything of it: its active and queued runs are
   * cancelled first, then its checkpoints (all namespaces), its thread and run
   * records, what `forget` removes besides (its review items) and its event
   * log. False when the tenant has no such thread.
   */
  async deleteThread(thread: ThreadRecord, forget?: (threadId: string) => Promise<void>): Promise<boolean> {
    return this.#serially(thread.threadId, async () => {
      for (const queued of this.#queued.get(thread.threadId)?.splice(0) ?? []) {
        await this.#finish(queued.record.runId, { status: "cancelled", error: "the thread was deleted" });
      }
      this.#queued.delete(thread.threadId);
      const active = this.#active.get(thread.threadId);
      if (active) {
        active.controller.abort(new RunAbort("cancelled", "the thread was deleted"));
        await active.done;
      }
      await this.#o.checkpointer.deleteThread(thread.threadId);
      await forget?.(thread.threadId);
      const deleted = await this.#o.store.deleteThread(thread.threadId, thread.tenant);
      this.#o.logs.drop(thread.threadId);
      return deleted;
    });
  }

  /**
   * A new thread of the same tenant with a copy of `thread`'s checkpoints
   * (every namespace, with their pending writes) and metadata; no runs.
   */
  async copyThread(thread: ThreadRecord, copyId: string): Promise<ThreadRecord> {
    const saver = this.#o.checkpointer;
    const tuples = [];
    for await (const tuple of saver.list({ threadId: thread.threadId })) tuples.push(tuple);
    // Oldest first, so each parent is stored before its children.
    tuples.sort((a, b) => (a.checkpoint.id < b.checkpoint.id ? -1 : a.checkpoint.id > b.checkpoint.id ? 1 : 0));
    const created = await this.#o.store.createThread({ threadId: copyId, tenant: thread.tenant, assistantId: thread.assistantId, status: "idle", metadata: { ...thread.metadata } });
    for (const t of tuples) {
      const stored = await saver.put(
        { threadId: copyId, checkpointNs: t.config.checkpointNs, ...(t.parentConfig ? { checkpointId: t.parentConfig.checkpointId } : {}) },
        t.checkpoint,
        t.metadata,
      );
      const byTask = new Map<string, Array<[string, unknown]>>();
      for (const [taskId, channel, value] of t.pendingWrites) {
        const list = byTask.get(taskId) ?? [];
        list.push([channel, value]);
        byTask.set(taskId, list);
      }
      for (const [taskId, writes] of byTask) await saver.putWrites(stored, writes, taskId);
    }
    const status: ThreadStatus = thread.status === "busy" ? "idle" : thread.status;
    return (await this.#o.store.updateThread(copyId, { status })) ?? created;
  }

  /** At start: runs a dead process left running are marked abandoned; their threads can be resumed. */
  async recover(): Promise<RunRecord[]> {
    // Several nodes: another node's runs are not ours to mark; lapsed leases are taken over instead.
    if (this.#o.ownership) return [];
    const unfinished = await this.#o.store.listUnfinishedRuns();
    for (const run of unfinished) {
      await this.#o.store.updateRun(run.runId, { status: "abandoned", error: "the hub stopped while the run was in progress" });
      const assistant = this.#o.assistants.get(run.assistantId);
      let status: ThreadStatus;
      try {
        const pending = assistant ? await pendingIds(assistant, run.threadId) : new Set<string>();
        status = pending.size > 0 ? "interrupted" : "idle";
      } catch (error) {
        // Unreadable: "error", not "idle"; a later run.start reads again and refuses while it cannot.
        this.#o.onError?.(error, `reading the pending interrupts of thread ${run.threadId}`);
        status = "error";
      }
      await this.#o.store.updateThread(run.threadId, { status });
    }
    return unfinished;
  }

  /** Stops every run (marked abandoned, resumable by the next process) and refuses new ones. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const giveUp of [...this.#closeWaiters]) giveUp();
    for (const queue of this.#queued.values()) {
      for (const q of queue) await this.#finish(q.record.runId, { status: "cancelled", error: "the hub shut down" });
    }
    this.#queued.clear();
    clearInterval(this.#queueRetry);
    this.#queueRetry = undefined;
    this.#o.control?.close();
    this.#o.ownership?.stopSweeper();
    const running = [...this.#active.values()];
    // Several nodes: each run is handed over (another node continues it) rather than abandoned.
    const abort = this.#o.ownership ? new RunAbort("handover", "this node is shutting down; another node continues the run") : new RunAbort("shutdown", "the hub is shutting down");
    for (const run of running) run.controller.abort(abort);
    await Promise.allSettled(running.map((r) => r.done));
  }

  /**
   * A reviewed resume: the review service announced each answer already
   * (input.answered). The checkpoint is read once, here: its pending ids check
   * the answers and its id is where a rollback would return to.
   */
  async #resumePlan(thread: ThreadRecord, assistant: Assistant, log: ThreadLog, order: ResumeOrder): Promise<RunPlan> {
    const head = await readHead(assistant, thread.threadId);
    const answers = Object.entries(order.answers).map(([interrupt_id, response]) => ({ interrupt_id, response }));
    const map = resumeMapOf(answers, head.pending, (id) => log.wasAnswered(id));
    return {
      runId: order.resumeRunId,
      threadId: thread.threadId,
      assistant,
      input: null,
      resume: { map, answeredBy: null, ...order.edits },
      headCheckpointId: head.checkpointId,
    };
  }

  async #plan(thread: ThreadRecord, assistant: Assistant, input: unknown, forkFrom: string | undefined): Promise<RunPlan> {
    const runId = nanoid();
    const head = forkFrom === undefined ? await readHead(assistant, thread.threadId) : { pending: new Set<string>(), checkpointId: forkFrom };
    const base = { runId, threadId: thread.threadId, assistant, headCheckpointId: head.checkpointId, ...(forkFrom === undefined ? {} : { checkpointId: forkFrom }) };
    const pending = head.pending;
    if (pending.size > 0) {
      // Every answer goes through review (candidates, self-approval, first answer
      // wins). A run.start that reaches this point did not: it was queued behind a
      // busy run, or the questions are no longer open (expired without a default,
      // cancelled). Resuming here would skip every review check.
      throw new SwitchboardError(
        "invalid_argument",
        input === null || input === undefined
          ? "the thread is interrupted: answer with input.respond (or run.start with the answer as input)"
          : "the thread is waiting on interrupts that are not open for review here: answer open questions with input.respond; closed ones (expired, cancelled) can only be left by forking from an earlier checkpoint (state.fork) or a new thread",
        { pending: [...pending] },
      );
    }
    if (input === null || input === undefined) return { ...base, input: null };
    if (typeof input !== "object" || Array.isArray(input)) {
      throw new SwitchboardError("invalid_argument", "run input must be an object of state updates (or null to continue)");
    }
    // Before the run record exists: the engine would refuse the input anyway, as a failed run.
    assistant.graph.checkInput(input as Record<string, unknown>);
    return { ...base, input: { ...input } };
  }

  /** Registers the run as active before any await, then executes it in the background. */
  async #launch(thread: ThreadRecord, plan: RunPlan, log: ThreadLog, startedBy: string, token?: number, announce?: ProtocolEvent): Promise<void> {
    const controller = new AbortController();
    let settle: (result: ExecutionResult) => void = () => {};
    const active: ActiveRun = { runId: plan.runId, controller, done: new Promise((r) => (settle = r)), startCheckpointId: undefined, held: undefined };
    this.#active.set(thread.threadId, active);
    try {
      const ownership = this.#o.ownership;
      if (ownership && token !== undefined) {
        active.held = await ownership.hold(thread.threadId, plan.runId, token, () => controller.abort(new RunAbort("fenced", "another node took the run over")));
      }
      if (announce) await log.send([announce]);
      active.startCheckpointId = plan.checkpointId ?? plan.headCheckpointId;
      // LangGraph clients (Agent Inbox) find a thread's graph in its metadata.
      const metadata = (await this.#o.store.getThread(thread.threadId, thread.tenant))?.metadata ?? thread.metadata;
      const tagged = metadata[GRAPH_ID_KEY] === plan.assistant.id ? {} : { metadata: { ...metadata, [GRAPH_ID_KEY]: plan.assistant.id, [ASSISTANT_ID_KEY]: plan.assistant.id } };
      await this.#o.store.updateThread(thread.threadId, { status: "busy", assistantId: plan.assistant.id, ...tagged });
    } catch (error) {
      this.#active.delete(thread.threadId);
      await active.held?.release().catch(() => undefined);
      const message = error instanceof Error ? error.message : String(error);
      await this.#finish(plan.runId, { status: "failed", error: message }).catch(() => undefined);
      settle({ outcome: { status: "failed", error: message }, pending: new Set(), abort: undefined });
      throw error;
    }
    void this.#run(thread, plan, log, active, { runId: plan.runId, threadId: thread.threadId, tenant: thread.tenant, startedBy }).then(settle);
  }

  async #run(thread: ThreadRecord, plan: RunPlan, log: ThreadLog, active: ActiveRun, info: RunInfo): Promise<ExecutionResult> {
    let result: ExecutionResult;
    const observer = this.#observer;
    const startedAt = Date.now();
    const ids = { run_id: plan.runId, thread_id: thread.threadId, tenant: thread.tenant, assistant_id: plan.assistant.id };
    this.#o.logger?.info(`run ${plan.runId} started`, { event: "run.started", ...ids, started_by: info.startedBy, resume: plan.resume !== undefined });
    try {
      result = await executeRun(plan, log, active.controller.signal, this.#o.metrics, observer && ((events) => observer.asking(info, events)));
    } catch (error) {
      // Only a bug gets here (the graph's own errors end the run as "failed"); never leave the thread busy.
      this.#o.onError?.(error, `executing run ${plan.runId}`);
      result = { outcome: { status: "failed", error: String(error) }, pending: new Set(), abort: undefined };
    }
    if (result.abort === "fenced" || result.abort === "handover") {
      // The run is another node's now (or will be at once): it writes nothing more here.
      try {
        if (result.abort === "handover") {
          await this.#drained(thread.threadId);
          await active.held?.handOver();
        }
      } catch (error) {
        this.#o.onError?.(error, `handing run ${plan.runId} over`);
      } finally {
        this.#active.delete(thread.threadId);
      }
      return result;
    }
    try {
      const status = result.abort === "shutdown" ? "abandoned" : result.outcome.status;
      await this.#finish(plan.runId, { status, error: result.outcome.error ?? null });
      const ended = { event: "run.ended", ...ids, status, duration_ms: Date.now() - startedAt };
      // A failure's message is the node's error, cut short; the run's input and state are never logged.
      if (status === "failed") this.#o.logger?.warn(`run ${plan.runId} failed`, { ...ended, error: (result.outcome.error ?? "").slice(0, 300) });
      else this.#o.logger?.info(`run ${plan.runId} ${status}`, ended);
      const threadStatus: ThreadStatus =
        result.pending === null ? "error" : result.pending.size > 0 ? "interrupted" : result.outcome.status === "failed" ? "error" : "idle";
      await this.#o.store.updateThread(thread.threadId, { status: threadStatus });
      await observer?.ended(info, result);
    } catch (error) {
      this.#o.onError?.(error, `recording the end of run ${plan.runId}`);
    } finally {
      // Several nodes: this run's last events reach the bus before the lease lets anyone start the next run
      // (its end is recorded already: a Redis outage delays the next run, not the records).
      await this.#drained(thread.threadId);
      this.#active.delete(thread.threadId);
      await active.held?.release().catch((error: unknown) => this.#o.onError?.(error, `releasing the lease of run ${plan.runId}`));
      // Runs other nodes queued behind this one start now.
      if (active.held) this.#o.control?.threadFree(thread.threadId);
    }
    if (this.#o.ownership && !this.#closing) void this.#resumeWaiting(thread);
    if (!this.#closing) this.#startNextQueued(thread);
    return result;
  }

  async #enqueue(thread: ThreadRecord, assistantId: string, work: QueuedWork, principal: Principal, runId = nanoid()): Promise<RunRecord> {
    const existing = await this.#o.store.getRun(runId);
    const record = existing !== undefined ? ((await this.#o.store.updateRun(runId, { status: "pending", error: null })) ?? existing) : await this.#o.store.createRun({
      runId,
      threadId: thread.threadId,
      tenant: thread.tenant,
      assistantId,
      status: "pending",
      startedBy: principal.sub,
      multitaskStrategy: "enqueue",
      input: work.kind === "start" ? (work.request.input ?? null) : null,
    });
    const queue = this.#queued.get(thread.threadId) ?? [];
    queue.push({ record, work, principal });
    this.#queued.set(thread.threadId, queue);
    return record;
  }

  #startNextQueued(thread: ThreadRecord): void {
    if (!this.#queued.get(thread.threadId)?.length) return;
    void this.#serially(thread.threadId, async () => {
      // An "interrupt"/"rollback" start may have taken the thread meanwhile; its end starts us.
      if (this.#closing || this.#active.has(thread.threadId)) return;
      const queue = this.#queued.get(thread.threadId) ?? [];
      const next = queue[0];
      if (!next) return;
      const dequeue = (): void => {
        const at = queue.indexOf(next);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0 && this.#queued.get(thread.threadId) === queue) this.#queued.delete(thread.threadId);
      };
      try {
        const assistant = this.#assistantOf({ ...thread, assistantId: next.record.assistantId });
        const log = await this.openLog(thread);
        const plan = next.work.kind === "start"
          ? await this.#plan(thread, assistant, next.work.request.input, undefined)
          : await this.#resumePlan(thread, assistant, log, next.work.order);
        const token = await this.#claim(thread.threadId, next.record.runId);
        dequeue();
        await this.#o.store.updateRun(next.record.runId, { status: "running", nodeId: this.#o.nodeId });
        await this.#launch(thread, { ...plan, runId: next.record.runId }, log, next.principal.sub, token);
      } catch (error) {
        // Several nodes: another node runs the thread (or took it first); this run stays queued until it is free.
        if (this.#o.ownership && error instanceof SwitchboardError && error.code === "thread_busy" && queue.includes(next)) {
          this.#retryQueued();
          return;
        }
        dequeue();
        await this.#finish(next.record.runId, { status: "failed", error: error instanceof Error ? error.message : String(error) });
        this.#startNextQueued(thread);
      }
    }).catch((error: unknown) => this.#o.onError?.(error, `starting a queued run of thread ${thread.threadId}`));
  }

  /** The run once it reached a final status; undefined for an unknown run (see RunWaiters). */
  waitForEnd(runId: string, signal?: AbortSignal): Promise<RunRecord | undefined> {
    return this.#waiters.wait(runId, () => this.#o.store.getRun(runId), signal);
  }

  /**
   * This node's events of the thread are on the bus (at once without one) —
   * or the hub is shutting down and waited 2 s more, as the logs do.
   */
  async #drained(threadId: string): Promise<void> {
    const drained = this.#o.logs.drained(threadId);
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.#closeWaiters.delete(giveUp);
        resolve();
      };
      const giveUp = (): void => {
        timer ??= setTimeout(done, 2_000);
      };
      if (this.#closing) giveUp();
      else this.#closeWaiters.add(giveUp);
      drained.then(done, done);
    });
  }

  /** Records a final status and wakes whoever waits for the run. */
  async #finish(runId: string, patch: { status: RunRecord["status"]; error?: string | null }): Promise<void> {
    const run = await this.#o.store.updateRun(runId, patch);
    if (run) this.#waiters.notify(run);
  }

  /**
   * Several nodes: takes the thread's lease for a run of this node, or refuses
   * with thread_busy naming the holder. A resume waits a little for a run that
   * is ending (the one that asked, recording its end on its node).
   */
  async #claim(threadId: string, runId: string, waitMs = 0): Promise<number | undefined> {
    const ownership = this.#o.ownership;
    if (!ownership) return undefined;
    let got = await ownership.acquire(threadId, runId);
    for (let delay = 10, waited = 0; !("token" in got) && waited < waitMs && !got.holder.expired; waited += delay, delay = Math.min(delay * 2, 200)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      got = await ownership.acquire(threadId, runId);
    }
    if ("token" in got) return got.token;
    throw busyOn(threadId, got.holder);
  }

  /** Several nodes: the holder of the thread's lease when another node (alive) runs its run. */
  async #remoteHolder(threadId: string): Promise<LeaseHolder | undefined> {
    if (!this.#o.ownership || !this.#o.control) return undefined;
    const holder = await this.#o.ownership.holder(threadId);
    return holder && holder.nodeId !== this.#o.nodeId && !holder.expired ? holder : undefined;
  }

  /** Several nodes: asks the node that runs the thread's run to stop it; resolves once it ended there. */
  async #stopThere(holder: LeaseHolder, threadId: string, reason: StopReason): Promise<StopOutcome> {
    const control = this.#o.control;
    if (!control) return { found: false };
    try {
      return await control.stop(holder.nodeId, threadId, holder.runId, reason, Math.max(5_000, this.#o.ownership?.leaseMs ?? 0));
    } catch (error) {
      if (error instanceof NodeUnreachableError) {
        throw new SwitchboardError("unavailable", `${error.message}; it will be taken over if that node is gone — retry`, { run_id: holder.runId, node_id: holder.nodeId });
      }
      throw error;
    }
  }

  /** Another node asks: stop our run of the thread (run.cancel, or a new run's multitask strategy there). */
  async #stopHere(threadId: string, runId: string, reason: StopReason): Promise<StopOutcome> {
    const active = this.#active.get(threadId);
    if (!active || active.runId !== runId) return { found: false };
    active.controller.abort(new RunAbort("cancelled", STOP_MESSAGES[reason]));
    await active.done;
    return { found: true, startCheckpointId: active.startCheckpointId };
  }

  /** Cancels a run this node holds in its queue (run.cancel here or on another node); whether it did. */
  #unqueueHere(threadId: string, runId: string): Promise<boolean> {
    if (!this.#queued.get(threadId)?.some((q) => q.record.runId === runId)) return Promise.resolve(false);
    // In turn with admission, so a queued run that is starting is not also cancelled.
    return this.#serially(threadId, async () => {
      const queue = this.#queued.get(threadId) ?? [];
      const index = queue.findIndex((q) => q.record.runId === runId);
      if (index < 0) return false;
      queue.splice(index, 1);
      if (queue.length === 0 && this.#queued.get(threadId) === queue) this.#queued.delete(threadId);
      await this.#finish(runId, { status: "cancelled", error: "cancelled while queued" });
      return true;
    });
  }

  /** Another node's run of the thread ended: a run queued here behind it may start. */
  #onThreadFree(threadId: string): void {
    const next = this.#queued.get(threadId)?.[0];
    if (!next || this.#closing) return;
    this.#o.store
      .getThread(threadId, next.record.tenant)
      .then((thread) => thread && this.#startNextQueued(thread))
      .catch((error: unknown) => this.#o.onError?.(error, `starting a queued run of thread ${threadId}`));
  }

  /** Several nodes: while runs wait here for a thread another node runs, looks again every second. */
  #retryQueued(): void {
    if (this.#queueRetry !== undefined || this.#closing) return;
    this.#queueRetry = setInterval(() => {
      const waiting = [...this.#queued.keys()].filter((threadId) => !this.#active.has(threadId));
      if (waiting.length === 0 || this.#closing) {
        clearInterval(this.#queueRetry);
        this.#queueRetry = undefined;
        return;
      }
      for (const threadId of waiting) this.#onThreadFree(threadId);
    }, 1_000);
    this.#queueRetry.unref();
  }

  /**
   * Several nodes: continues a run whose node stopped renewing its lease (this
   * node now holds it, under `lease.token`), from the thread's last
   * checkpoint: tasks that finished there are not run again, pending
   * interrupts keep their ids. Announced first on the root namespace as
   * `lifecycle {event: "running", taken_over: true, node_id, previous_node_id}`.
   */
  async takeOver(lease: TakenLease): Promise<void> {
    const ownership = this.#o.ownership;
    const run = await this.#o.store.getRun(lease.runId);
    const thread = run && (await this.#o.store.getThread(run.threadId, run.tenant));
    const release = (): Promise<void> => (ownership ? ownership.hold(lease.threadId, lease.runId, lease.token, () => {}).then((h) => h.release()) : Promise.resolve());
    if (!ownership || !run || !thread) return release();
    await this.#serially(thread.threadId, async () => {
      if (this.#closing) return release();
      const assistant = this.#o.assistants.get(run.assistantId);
      if (!assistant) return release();
      const log = await this.openLog(thread);
      const state = await assistant.graph.getState(thread.threadId);
      const pending = new Set(state.interrupts.map((i) => i.id));
      const order = await this.#o.resumeOf?.(run.runId);
      const answers = order ? Object.fromEntries(Object.entries(order.answers).filter(([id]) => pending.has(id))) : {};
      let plan: RunPlan;
      if (order && Object.keys(answers).length > 0) {
        plan = await this.#resumePlan(thread, assistant, log, { ...order, answers });
      } else if (state.config === undefined) {
        // It died before its first checkpoint: it starts again from its input.
        plan = { ...(await this.#plan(thread, assistant, run.input, undefined)), runId: run.runId };
      } else if (pending.size > 0 || state.next.length === 0) {
        // It had reached its end (or its questions) when its node died: only its records are left to write.
        await this.#o.store.updateRun(run.runId, { status: pending.size > 0 ? "interrupted" : "completed" });
        await this.#o.store.updateThread(thread.threadId, { status: pending.size > 0 ? "interrupted" : "idle" });
        return release();
      } else {
        plan = { runId: run.runId, threadId: thread.threadId, assistant, input: null, headCheckpointId: state.config.checkpointId };
      }
      const announce: ProtocolEvent = {
        type: "event",
        thread_id: thread.threadId,
        run_id: run.runId,
        method: "lifecycle",
        params: {
          namespace: [],
          timestamp: Date.now(),
          data: { event: "running", graph_name: assistant.id, taken_over: true, node_id: ownership.nodeId, previous_node_id: lease.previousNodeId },
        },
      };
      await this.#o.store.updateRun(run.runId, { status: "running", error: null, nodeId: this.#o.nodeId });
      await this.#launch(thread, plan, log, run.startedBy, lease.token, announce);
    });
  }

  /** Several nodes: a resume that found the thread busy on some node runs now that it is free. */
  async #resumeWaiting(thread: ThreadRecord): Promise<void> {
    try {
      const waiting = await this.#o.waitingResume?.(thread.threadId);
      if (waiting === undefined) return;
      await this.resumeReviewed(thread, waiting, { sub: waiting.startedBy, name: waiting.startedBy, tenant: thread.tenant, roles: [] });
    } catch (error) {
      if (!(error instanceof SwitchboardError && error.code === "thread_busy")) this.#o.onError?.(error, `resuming thread ${thread.threadId}`);
    }
  }

  #assistantOf(thread: ThreadRecord): Assistant {
    const assistant = thread.assistantId === null ? undefined : this.#o.assistants.get(thread.assistantId);
    if (!assistant) throw new SwitchboardError("nothing_pending", `thread ${thread.threadId} has never run`);
    return assistant;
  }

  async #mustGetRun(runId: string): Promise<RunRecord> {
    const run = await this.#o.store.getRun(runId);
    if (!run) throw new SwitchboardError("no_such_run", `run ${runId} is gone`);
    return run;
  }

  #assertOpen(): void {
    if (this.#closing) throw new SwitchboardError("unknown_error", "the hub is shutting down");
  }

  /** Admission decisions for one thread happen one at a time. */
  #serially<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#serial.get(threadId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.#serial.set(threadId, tail);
    void tail.then(() => {
      if (this.#serial.get(threadId) === tail) this.#serial.delete(threadId);
    });
    return next;
  }
}

/** Thread metadata keys a run sets, as the LangGraph server does (clients filter threads by graph). */
export const GRAPH_ID_KEY = "graph_id";
export const ASSISTANT_ID_KEY = "assistant_id";

/** How long a resume waits for the thread's lease (the run that asked is recording its end). */
const RESUME_CLAIM_WAIT_MS = 3_000;

const STOP_MESSAGES: Record<StopReason, string> = {
  cancelled: "run cancelled by run.cancel",
  interrupt: `interrupted by a new run (multitask strategy "interrupt")`,
  rollback: `rolled back by a new run (multitask strategy "rollback")`,
};

function busyOn(threadId: string, holder: LeaseHolder): SwitchboardError {
  return new SwitchboardError("thread_busy", `thread ${threadId} has an active run (${holder.runId}) on node ${holder.nodeId}`, {
    run_id: holder.runId,
    node_id: holder.nodeId,
  });
}

function notFound(threadId: string): SwitchboardError {
  return new SwitchboardError("not_found", `no thread ${threadId}`);
}

