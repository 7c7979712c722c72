/**
 * Executes one run: streams the graph with every mode the projection needs,
 * projects each part into protocol events and publishes them to the thread
 * log; ends with a root lifecycle event whatever happens (the official SDK
 * settles a run only on one).
 */
import { Command, Send, type StreamMode } from "../../engine/index.ts";
import type { Assistant } from "./assistants.ts";
import type { HubMetrics } from "../metrics.ts";
import type { Actor, ProtocolEvent } from "../protocol/index.ts";
import { createProjector, type RunOutcome } from "./projection.ts";
import type { LogEntry, ThreadLog } from "../threads/index.ts";

/** `debug` is left out: `tasks` and `checkpoints` carry the same facts. */
export const PROJECTED_MODES = ["values", "updates", "messages", "custom", "tasks", "checkpoints", "tools"] as const satisfies readonly StreamMode[];

export interface RunPlan {
  runId: string;
  threadId: string;
  assistant: Assistant;
  /** New input (object or null), or the answers of a resume. */
  input: Record<string, unknown> | null;
  /**
   * The answers of a resume. `answeredBy` null: the review service already
   * announced each answer (input.answered), so the run does not repeat it.
   */
  resume?: { map: Record<string, unknown>; answeredBy: Actor | null; update?: Record<string, unknown>; goto?: Array<string | { node: string; input?: unknown }> };
  /** Fork from this checkpoint (rollback) instead of the latest. */
  checkpointId?: string;
  /** The thread's latest checkpoint when the run was planned (read once per run): where a rollback returns. */
  headCheckpointId?: string | undefined;
  options?: RunOptions;
}

/** Options a caller may set per run (LangGraph's `interrupt_before/after`, `metadata`). */
export interface RunOptions {
  interruptBefore?: readonly string[] | "*";
  interruptAfter?: readonly string[] | "*";
  /** Stored with every checkpoint of the run (JSON). */
  metadata?: Record<string, unknown>;
  recursionLimit?: number;
  /** Handed to every node as `runtime.context`. */
  context?: unknown;
}

/**
 * Why a run was aborted; its outcome follows from it. With several nodes,
 * "handover": this node stops and another continues the run; "fenced": this
 * node lost the run's lease (another node has taken it over).
 */
export type AbortKind = "cancelled" | "shutdown" | "handover" | "fenced";

export class RunAbort extends Error {
  readonly kind: AbortKind;
  constructor(kind: AbortKind, message: string) {
    super(message);
    this.name = "RunAbort";
    this.kind = kind;
  }
}

export interface ExecutionResult {
  outcome: RunOutcome;
  /** Interrupt ids pending when the run ended (read from the checkpoint); null when they could not be read (the run then failed). */
  pending: ReadonlySet<string> | null;
  abort: AbortKind | undefined;
}

/**
 * Called with a batch of events that asks questions (`input.requested`),
 * transformed as they will be published, before they are: the hub stores
 * their review items first, so an answer can never arrive before its item.
 */
export type AskingHook = (events: readonly ProtocolEvent[]) => Promise<void>;

export async function executeRun(plan: RunPlan, log: ThreadLog, signal: AbortSignal, metrics: HubMetrics, asking?: AskingHook): Promise<ExecutionResult> {
  const { runId, threadId, assistant } = plan;
  const count = (entries: readonly LogEntry[]): void => {
    metrics.eventsPublished += entries.length;
  };
  // One node: numbered here. Several: sent to the bus, which may ask the run to wait (its buffer is full).
  const emit = (events: readonly ProtocolEvent[], transformed: boolean): Promise<void> | undefined => {
    if (!log.onBus) {
      count(log.publish(events, { transformed }));
      return undefined;
    }
    metrics.eventsPublished += events.length;
    return log.send(events, { transformed });
  };
  // Synchronous for every batch but the rare one that asks: no await per token.
  const publish = (events: ProtocolEvent[]): Promise<void> | undefined => {
    if (asking === undefined || !events.some((e) => e.method === "input.requested")) return emit(events, false);
    const transformed = log.transform(events);
    return asking(transformed).then(() => emit(transformed, true));
  };
  log.beginRun(runId);
  if (plan.resume && plan.resume.answeredBy !== null) {
    publish([
      {
        type: "event",
        thread_id: threadId,
        run_id: runId,
        method: "input.answered",
        params: {
          namespace: [],
          timestamp: Date.now(),
          data: { interrupt_ids: Object.keys(plan.resume.map), answered_by: plan.resume.answeredBy, answered_at: Date.now() },
        },
      },
    ]);
  }
  const projector = createProjector({ threadId, runId, graphName: assistant.id, signal });
  publish(projector.start());
  const input = plan.resume
    ? new Command({
        resume: plan.resume.map,
        ...(plan.resume.update !== undefined ? { update: plan.resume.update } : {}),
        // A { node, input } target is the wire form of Send.
        ...(plan.resume.goto !== undefined && plan.resume.goto.length > 0
          ? { goto: plan.resume.goto.map((g) => (typeof g === "string" ? g : new Send(g.node, g.input))) }
          : {}),
      })
    : plan.input;
  let failure: unknown;
  try {
    const parts = assistant.graph.stream(input, {
      threadId,
      runId,
      signal,
      streamMode: PROJECTED_MODES,
      subgraphs: true,
      ...(plan.checkpointId === undefined ? {} : { checkpointId: plan.checkpointId }),
      ...plan.options,
    });
    for await (const part of parts) {
      const asked = publish(projector.push(part));
      if (asked !== undefined) await asked;
    }
  } catch (error) {
    failure = error;
  }
  let pending: Set<string> | null;
  try {
    pending = await pendingIds(assistant, threadId);
  } catch (error) {
    // Unknown is not "none": the run fails and no question is dropped on a guess.
    pending = null;
    failure ??= new Error(`the run ended but its pending interrupts could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  // An abort that lands after the graph finished does not undo its result.
  const reason: unknown = signal.aborted && failure !== undefined ? signal.reason : undefined;
  const abort = reason instanceof RunAbort ? reason.kind : reason !== undefined ? "cancelled" : undefined;
  let outcome: RunOutcome;
  if (abort !== undefined) {
    outcome = { status: "cancelled", error: reason instanceof Error ? reason.message : "run cancelled" };
  } else if (failure !== undefined) {
    outcome = { status: "failed", error: failure instanceof Error ? failure.message : String(failure) };
  } else {
    // A partial resume raises nothing new yet leaves the thread waiting.
    outcome = { status: pending !== null && pending.size > 0 ? "interrupted" : "completed" };
  }
  await publish(projector.finish(outcome));
  if (pending !== null) log.retainPending(pending);
  return { outcome, pending, abort };
}

/** What a run needs to know of the thread's latest checkpoint, from one read of it. */
export interface ThreadHead {
  /** Interrupt ids the checkpoint waits on: the one answer to "which interrupts are pending". */
  pending: Set<string>;
  checkpointId: string | undefined;
}

/**
 * Fails closed: an error reading the checkpoint is thrown, never read as
 * "nothing pending" — that answer would let a run.start skip review and void
 * every open question.
 */
export async function readHead(assistant: Assistant, threadId: string): Promise<ThreadHead> {
  const state = await assistant.graph.getState(threadId);
  return { pending: new Set(state.interrupts.map((i) => i.id)), checkpointId: state.config?.checkpointId };
}

export async function pendingIds(assistant: Assistant, threadId: string): Promise<Set<string>> {
  return (await readHead(assistant, threadId)).pending;
}
