/**
 * Named errors of the engine. Each carries a stable `code` so callers (the hub,
 * the wire) can map them without parsing messages.
 */

export const ENGINE_ERROR_CODES = {
  GRAPH_VALIDATION: "GRAPH_VALIDATION",
  INVALID_UPDATE: "INVALID_UPDATE",
  EMPTY_CHANNEL: "EMPTY_CHANNEL",
  RECURSION_LIMIT: "RECURSION_LIMIT",
  NODE_TIMEOUT: "NODE_TIMEOUT",
  RUN_CANCELLED: "RUN_CANCELLED",
  THREAD_BUSY: "THREAD_BUSY",
  MISSING_CHECKPOINTER: "MISSING_CHECKPOINTER",
  MISSING_THREAD_ID: "MISSING_THREAD_ID",
  AMBIGUOUS_RESUME: "AMBIGUOUS_RESUME",
  UNKNOWN_INTERRUPT: "UNKNOWN_INTERRUPT",
  INTERRUPT_ALREADY_ANSWERED: "INTERRUPT_ALREADY_ANSWERED",
  NOTHING_TO_RESUME: "NOTHING_TO_RESUME",
  PENDING_INTERRUPTS: "PENDING_INTERRUPTS",
  INTERRUPT_SWALLOWED: "INTERRUPT_SWALLOWED",
  INTERRUPT_NOT_SERIALIZABLE: "INTERRUPT_NOT_SERIALIZABLE",
  INTERRUPT_OUTSIDE_TASK: "INTERRUPT_OUTSIDE_TASK",
  INVALID_COMMAND: "INVALID_COMMAND",
  CHECKPOINT_NOT_FOUND: "CHECKPOINT_NOT_FOUND",
} as const;

export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[keyof typeof ENGINE_ERROR_CODES];

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  constructor(code: EngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

export type GraphValidationReason =
  | "unknown_node"
  | "no_entry"
  | "unreachable_node"
  | "duplicate_node"
  | "reserved_name"
  | "invalid_edge"
  | "missing_ends";

export class GraphValidationError extends EngineError {
  readonly reason: GraphValidationReason;
  constructor(reason: GraphValidationReason, message: string) {
    super("GRAPH_VALIDATION", message);
    this.reason = reason;
  }
}

export class InvalidUpdateError extends EngineError {
  constructor(message: string) {
    super("INVALID_UPDATE", message);
  }
}

/** Run input with a key that is not a state channel. `channels` lists the public ones (private names are never shown). */
export class UnknownInputKeyError extends InvalidUpdateError {
  readonly key: string;
  readonly channels: string[];
  constructor(key: string, channels: string[]) {
    super(`input key "${key}" is not a state channel (channels: ${channels.join(", ") || "none"})`);
    this.key = key;
    this.channels = channels;
  }
}

/** updateState() without asNode when the last step ran several nodes: the caller must say which. */
export class AmbiguousUpdateError extends InvalidUpdateError {
  readonly candidates: string[];
  constructor(candidates: string[]) {
    super(
      `cannot tell which node this update comes from: ${candidates.join(", ")} ran last, in the same step; pass { asNode } to updateState()`,
    );
    this.candidates = candidates;
  }
}

export class EmptyChannelError extends EngineError {
  constructor(channel: string) {
    super("EMPTY_CHANNEL", `channel "${channel}" is empty`);
  }
}

export class GraphRecursionError extends EngineError {
  constructor(limit: number) {
    super(
      "RECURSION_LIMIT",
      `recursion limit of ${limit} steps reached without hitting a stop condition; raise recursionLimit if the graph is meant to run longer`,
    );
  }
}

export class NodeTimeoutError extends EngineError {
  constructor(node: string, ms: number) {
    super("NODE_TIMEOUT", `node "${node}" did not finish within ${ms} ms`);
  }
}

export class RunCancelledError extends EngineError {
  constructor(reason?: unknown) {
    super("RUN_CANCELLED", "the run was cancelled", { cause: reason });
  }
}

export class ThreadBusyError extends EngineError {
  readonly threadId: string;
  constructor(threadId: string) {
    super("THREAD_BUSY", `thread "${threadId}" already has a run in progress`);
    this.threadId = threadId;
  }
}

export class MissingCheckpointerError extends EngineError {
  constructor(what: string) {
    super(
      "MISSING_CHECKPOINTER",
      `${what} needs a checkpointer: compile the graph with { checkpointer } and pass a threadId`,
    );
  }
}

export class MissingThreadIdError extends EngineError {
  constructor() {
    super("MISSING_THREAD_ID", "a graph compiled with a checkpointer needs { threadId } in the call options");
  }
}

export class AmbiguousResumeError extends EngineError {
  readonly pending: string[];
  constructor(pending: string[]) {
    super(
      "AMBIGUOUS_RESUME",
      `${pending.length} interrupts are pending (${pending.join(", ")}); resume with a map { [interruptId]: value }`,
    );
    this.pending = pending;
  }
}

export class UnknownInterruptError extends EngineError {
  readonly interruptId: string;
  /** The ids that are pending instead (as on AmbiguousResumeError and PendingInterruptsError). */
  readonly pending: string[];
  constructor(interruptId: string, pending: string[]) {
    super(
      "UNKNOWN_INTERRUPT",
      `interrupt "${interruptId}" is not pending on this thread (pending: ${pending.join(", ") || "none"})`,
    );
    this.interruptId = interruptId;
    this.pending = pending;
  }
}

export class InterruptAlreadyAnsweredError extends EngineError {
  readonly interruptId: string;
  constructor(interruptId: string) {
    super("INTERRUPT_ALREADY_ANSWERED", `interrupt "${interruptId}" was already answered`);
    this.interruptId = interruptId;
  }
}

export class NothingToResumeError extends EngineError {
  constructor(threadId: string) {
    super("NOTHING_TO_RESUME", `thread "${threadId}" has no pending interrupt to resume`);
  }
}

export class PendingInterruptsError extends EngineError {
  readonly pending: string[];
  constructor(pending: string[]) {
    super(
      "PENDING_INTERRUPTS",
      `the thread is waiting on interrupts ${pending.join(", ")}: answer them with Command({ resume }) before sending new input, or start a new thread`,
    );
    this.pending = pending;
  }
}

export class InterruptSwallowedError extends EngineError {
  constructor(node: string) {
    super(
      "INTERRUPT_SWALLOWED",
      `node "${node}" called interrupt() but caught the pause it raises (a try/catch around interrupt()); let errors named GraphInterrupt propagate`,
    );
  }
}

export class InterruptValueNotSerializableError extends EngineError {
  readonly path: string;
  constructor(path: string, what: string) {
    super("INTERRUPT_NOT_SERIALIZABLE", `interrupt() value is not JSON-serializable at ${path}: ${what}`);
    this.path = path;
  }
}

export class InterruptOutsideTaskError extends EngineError {
  constructor() {
    super("INTERRUPT_OUTSIDE_TASK", "interrupt() was called outside a graph node");
  }
}

export class InvalidCommandError extends EngineError {
  constructor(message: string) {
    super("INVALID_COMMAND", message);
  }
}

export class CheckpointNotFoundError extends EngineError {
  constructor(threadId: string, checkpointId: string, checkpointNs = "") {
    super(
      "CHECKPOINT_NOT_FOUND",
      `thread "${threadId}" has no checkpoint "${checkpointId}"${checkpointNs ? ` in namespace "${checkpointNs}"` : ""}`,
    );
  }
}

/**
 * Control flow, not a failure: thrown by interrupt() and caught by the runner.
 * Its name is checked by tool wrappers that must never swallow it.
 */
export class GraphInterrupt extends Error {
  readonly isGraphInterrupt = true;
  readonly interrupts: Array<{ id: string; value: unknown }>;
  constructor(interrupts: Array<{ id: string; value: unknown }>) {
    // A pause is not a failure: skip capturing a stack trace (measurable per interrupt).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`graph interrupted (${interrupts.map((i) => i.id).join(", ") || "breakpoint"})`);
    Error.stackTraceLimit = limit;
    this.name = "GraphInterrupt";
    this.interrupts = interrupts;
  }
}

export function isGraphInterrupt(error: unknown): error is GraphInterrupt {
  return error instanceof GraphInterrupt || (typeof error === "object" && error !== null && (error as { isGraphInterrupt?: unknown }).isGraphInterrupt === true);
}
