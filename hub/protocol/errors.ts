/**
 * Error codes and WebSocket close codes: data, not prose. The table in
 * docs/PROTOCOL.md mirrors `ERROR_CODES`; a test keeps them in step.
 */
import type { ErrorCode as SpecErrorCode } from "@langchain/protocol";

export interface ErrorCodeInfo {
  /** HTTP status used by `POST /commands` and the upgrade refusal. */
  readonly status: number;
  /** True when the same command may succeed if sent again later, unchanged. */
  readonly retryable: boolean;
  /** True for the codes of @langchain/protocol 0.0.21; false for extensions. */
  readonly spec: boolean;
  readonly description: string;
}

export const ERROR_CODES = {
  // --- @langchain/protocol 0.0.21 ---
  invalid_argument: { status: 400, retryable: false, spec: true, description: "The frame or its params are malformed." },
  unknown_command: { status: 400, retryable: false, spec: true, description: "No command has this method." },
  unknown_error: { status: 500, retryable: true, spec: true, description: "An unexpected server error." },
  no_such_run: { status: 404, retryable: false, spec: true, description: "The run id is not known on this thread." },
  no_such_subscription: { status: 404, retryable: false, spec: true, description: "The subscription id is not known on this connection." },
  no_such_namespace: { status: 404, retryable: false, spec: true, description: "The namespace does not exist in the agent tree." },
  no_such_interrupt: { status: 404, retryable: false, spec: true, description: "The thread never had an interrupt with this id." },
  no_such_checkpoint: { status: 404, retryable: false, spec: true, description: "The checkpoint id is not known on this thread." },
  permission_denied: { status: 403, retryable: false, spec: true, description: "The principal lacks the role this command needs." },
  not_supported: { status: 501, retryable: false, spec: true, description: "The command is valid but this hub does not implement it." },
  // --- Switchboard extensions ---
  unauthenticated: { status: 401, retryable: false, spec: false, description: "No valid credentials (missing, expired or bad token)." },
  not_found: { status: 404, retryable: false, spec: false, description: "The thread, queue or assistant does not exist (or is not visible to this tenant)." },
  already_exists: { status: 409, retryable: false, spec: false, description: "A thread with this id exists (the LangGraph API's `POST /threads` with `if_exists: \"raise\"`)." },
  already_answered: { status: 409, retryable: false, spec: false, description: "Another answer won; `details.answered_by` names the winner." },
  thread_busy: { status: 409, retryable: true, spec: false, description: "The thread has an active run and the multitask strategy is `reject`." },
  claim_held: { status: 409, retryable: true, spec: false, description: "Another reviewer holds the claim; retry after `details.expires_at`." },
  already_voted: { status: 409, retryable: false, spec: false, description: "This reviewer already voted on the quorum item (each candidate votes once); `details.voted_at` says when." },
  stale_payload: { status: 409, retryable: false, spec: false, description: "The answer's `payload_digest` is not the item's current one (the state was edited or the question re-raised); the item stays open — reload it and answer again." },
  nothing_pending: { status: 409, retryable: false, spec: false, description: "A resume on a thread with no pending interrupt." },
  unknown_interrupt: { status: 409, retryable: false, spec: false, description: "The id exists in the thread's history but is not pending now (a stale question)." },
  interrupt_expired: { status: 410, retryable: false, spec: false, description: "The interrupt's deadline passed; its expiry action was applied." },
  interrupt_cancelled: { status: 410, retryable: false, spec: false, description: "The run that asked was cancelled; the question is void." },
  payload_too_large: { status: 413, retryable: false, spec: false, description: "The frame or a field exceeds the hub's size limit." },
  rate_limited: { status: 429, retryable: true, spec: false, description: "Too many commands; retry after `details.retry_after_ms`." },
  slow_consumer: { status: 503, retryable: true, spec: false, description: "The client did not read fast enough; reconnect with the last seq." },
  unavailable: { status: 503, retryable: true, spec: false, description: "A service the hub needs (its database or event bus) is unreachable; nothing was stored — retry." },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

// Every spec code must be one of ours (breaks the build if the spec adds one).
type SpecCovered = SpecErrorCode extends ErrorCode ? true : never;
export const SPEC_ERROR_CODES_COVERED: SpecCovered = true;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

export function isRetryable(code: ErrorCode): boolean {
  return ERROR_CODES[code].retryable;
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/**
 * WebSocket close codes after the socket is open: 4000 + the HTTP status of
 * the same condition. Before the upgrade, the hub answers with the HTTP status
 * itself. A slow consumer is terminated without a close frame when its buffer
 * is full (the frame would queue behind it): the client then sees 1006 and
 * must treat it like 4503.
 */
export const CLOSE_CODES = {
  unauthenticated: 4401,
  permission_denied: 4403,
  not_found: 4404,
  slow_consumer: 4503,
} as const satisfies Partial<Record<ErrorCode, number>>;

export type CloseReason = keyof typeof CLOSE_CODES;
export type CloseCode = (typeof CLOSE_CODES)[CloseReason];

/** Why a typed frame was refused before it reached a handler. */
export type DecodeErrorKind = "malformed_json" | "too_deep" | "not_an_object" | "missing_id" | "unknown_method" | "invalid_params";

/** A frame-level protocol error; becomes an ErrorResponse with `id` (or null). */
export interface ProtocolError {
  kind: DecodeErrorKind;
  code: ErrorCode;
  message: string;
  /** The command id when it could be read, else null. */
  id: number | null;
  /** zod issue path for invalid_params (e.g. ["params", "channels", 0]). */
  path?: Array<string | number>;
}

/** A thrown error with a stable code, for handlers that cannot return one. */
export class SwitchboardError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "SwitchboardError";
    this.code = code;
    this.details = details;
  }

  get retryable(): boolean {
    return isRetryable(this.code);
  }
}
