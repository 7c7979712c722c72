/**
 * Turning protocol answers into an engine resume map, checked against the
 * thread's pending interrupts first: an `input.respond` must fail with a
 * code before it is acknowledged, not later as a failed run.
 */
import { AmbiguousResumeError, EngineError, PendingInterruptsError, UnknownInputKeyError, UnknownInterruptError, type EngineErrorCode } from "../../engine/index.ts";
import { SwitchboardError, isRecord, type ErrorCode } from "../protocol/index.ts";

export interface Answer {
  interrupt_id: string;
  response: unknown;
}

/** A `goto` target sent with an answer: a node, or a `Send` to one ({ node, input }). */
export type GotoTarget = string | { node: string; input?: unknown };

/** State edits sent with an answer (input.respond { update, goto }), applied when its resume completes the paused step. */
export interface ResumeEdits {
  update?: Record<string, unknown>;
  goto?: GotoTarget[];
}

/**
 * What a resume run consumes: the durable record the review store handed
 * out (ResumeBatch), as the run manager needs it.
 */
export interface ResumeOrder {
  /** The resume run's id, chosen when the answers were taken. */
  resumeRunId: string;
  answers: Record<string, unknown>;
  edits: ResumeEdits;
}

/** The wire's `goto` (one target or several) as a list. */
export function gotoList(goto: GotoTarget | readonly GotoTarget[] | undefined): GotoTarget[] | undefined {
  if (goto === undefined) return undefined;
  return Array.isArray(goto) ? [...(goto as readonly GotoTarget[])] : [goto as GotoTarget];
}

/**
 * Checks every answer against `pending`; `wasAnswered` tells a stale id
 * (already_answered) from one the thread never had (no_such_interrupt).
 */
export function resumeMapOf(
  answers: readonly Answer[],
  pending: ReadonlySet<string>,
  wasAnswered: (id: string) => boolean,
): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const { interrupt_id: id, response } of answers) {
    if (Object.hasOwn(map, id)) throw new SwitchboardError("invalid_argument", `interrupt ${id} is answered twice in one command`);
    if (!pending.has(id)) {
      if (wasAnswered(id)) throw new SwitchboardError("already_answered", `interrupt ${id} was already answered`, { interrupt_id: id });
      if (pending.size === 0) throw new SwitchboardError("nothing_pending", "the thread has no pending interrupt to answer");
      throw new SwitchboardError("no_such_interrupt", `interrupt ${id} is not pending on this thread`, { pending: [...pending] });
    }
    map[id] = response;
  }
  return map;
}

/**
 * `run.start` on an interrupted thread: the input is the answer. A map keyed
 * by pending ids answers those; anything else answers the only pending one.
 */
export function answersFromRunInput(input: unknown, pending: ReadonlySet<string>): Answer[] {
  if (isRecord(input)) {
    const keys = Object.keys(input);
    if (keys.length > 0 && keys.every((k) => pending.has(k))) {
      return Object.entries(input).map(([interrupt_id, response]) => ({ interrupt_id, response }));
    }
  }
  const [only, ...more] = pending;
  if (only === undefined || more.length > 0) {
    throw new SwitchboardError(
      "invalid_argument",
      `the thread has ${pending.size} pending interrupts; answer them with input.respond or pass { [interrupt_id]: answer } as input`,
      { pending: [...pending] },
    );
  }
  return [{ interrupt_id: only, response: input }];
}

/**
 * Every engine error code's wire code, exhaustive by type: a new engine code
 * without an entry here is a compile error, never a silent `unknown_error`.
 * `unknown_error` below is a decision: a broken graph or node (a bug of the
 * deployment, not of the request).
 */
export const ENGINE_TO_WIRE = {
  GRAPH_VALIDATION: "unknown_error",
  INVALID_UPDATE: "invalid_argument",
  EMPTY_CHANNEL: "unknown_error",
  RECURSION_LIMIT: "unknown_error",
  NODE_TIMEOUT: "unknown_error",
  RUN_CANCELLED: "unknown_error",
  THREAD_BUSY: "thread_busy",
  MISSING_CHECKPOINTER: "unknown_error",
  MISSING_THREAD_ID: "invalid_argument",
  AMBIGUOUS_RESUME: "invalid_argument",
  UNKNOWN_INTERRUPT: "no_such_interrupt",
  INTERRUPT_ALREADY_ANSWERED: "already_answered",
  NOTHING_TO_RESUME: "nothing_pending",
  // New input while questions are open: the client must answer them first (details.pending names them).
  PENDING_INTERRUPTS: "invalid_argument",
  INTERRUPT_SWALLOWED: "unknown_error",
  INTERRUPT_NOT_SERIALIZABLE: "unknown_error",
  INTERRUPT_OUTSIDE_TASK: "unknown_error",
  INVALID_COMMAND: "invalid_argument",
  CHECKPOINT_NOT_FOUND: "no_such_checkpoint",
} as const satisfies Record<EngineErrorCode, ErrorCode>;

/** The fields an engine error carries, as wire details (the message says the same in words). */
function detailsOf(error: EngineError): Record<string, unknown> | undefined {
  if (error instanceof UnknownInputKeyError) return { key: error.key, channels: error.channels };
  if (error instanceof UnknownInterruptError) return { interrupt_id: error.interruptId, pending: error.pending };
  if (error instanceof AmbiguousResumeError || error instanceof PendingInterruptsError) return { pending: error.pending };
  return undefined;
}

/**
 * Error codes of a database or bus that cannot be reached (node's socket
 * errors, Postgres connection and shutdown SQLSTATEs, the event bus's).
 */
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006", "BUS_UNAVAILABLE"]);

function isUnreachable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNREACHABLE.has(code)) return true;
  // pg reports a pool that cannot connect with a plain Error.
  return error instanceof Error && /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/.test(error.message);
}

/** Any error as a SwitchboardError with a wire code (unknown_error for the unexpected). */
export function toSwitchboardError(error: unknown): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  if (isUnreachable(error)) return new SwitchboardError("unavailable", `a service the hub needs is unreachable: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof EngineError) return new SwitchboardError(ENGINE_TO_WIRE[error.code], error.message, detailsOf(error));
  return new SwitchboardError("unknown_error", error instanceof Error ? error.message : String(error));
}
