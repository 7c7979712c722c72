/**
 * Errors thrown by chat models and the tool node. Codes are data: a caller
 * (retry policy, the hub) decides on `code` and `retryable`, never on text.
 */

export const MODEL_ERROR_CODES = {
  /** The call's AbortSignal fired; the error's name is "AbortError". */
  ABORTED: "ABORTED",
  /** HTTP 401/403: missing or rejected credentials. */
  UNAUTHORIZED: "UNAUTHORIZED",
  /** HTTP 429. */
  RATE_LIMITED: "RATE_LIMITED",
  /** Other HTTP 4xx: the request itself is wrong. */
  BAD_REQUEST: "BAD_REQUEST",
  /** HTTP 5xx. */
  SERVER_ERROR: "SERVER_ERROR",
  /** The connection failed before a response arrived. */
  NETWORK_ERROR: "NETWORK_ERROR",
  /** A response that is not a stream we can read (content type, no body). */
  INVALID_RESPONSE: "INVALID_RESPONSE",
  /** A stream event whose data is not the JSON we expect. */
  MALFORMED_EVENT: "MALFORMED_EVENT",
  /** The stream ended or broke before the provider said it was done. */
  STREAM_INCOMPLETE: "STREAM_INCOMPLETE",
  /** The provider reported an error inside an otherwise good stream. */
  PROVIDER_ERROR: "PROVIDER_ERROR",
  /** Messages or options the model cannot send. */
  INVALID_REQUEST: "INVALID_REQUEST",
  /** A model was constructed with options that cannot work. */
  INVALID_CONFIG: "INVALID_CONFIG",
  /** A ScriptedChatModel was called more times than it has responses. */
  SCRIPT_EXHAUSTED: "SCRIPT_EXHAUSTED",
  /** toolNode ran on a state whose last message is not an AI message. */
  NO_AI_MESSAGE: "NO_AI_MESSAGE",
} as const;

export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[keyof typeof MODEL_ERROR_CODES];

/** Codes for which trying the same call again may succeed. */
export const RETRYABLE_MODEL_ERROR_CODES: ReadonlySet<ModelErrorCode> = new Set<ModelErrorCode>([
  "RATE_LIMITED",
  "SERVER_ERROR",
  "NETWORK_ERROR",
  "STREAM_INCOMPLETE",
]);

export interface ModelErrorDetails {
  cause?: unknown;
  /** HTTP status of the response, when there was one. */
  status?: number;
  /** From a Retry-After header, when the provider sent one. */
  retryAfterMs?: number;
}

export class ModelError extends Error {
  readonly code: ModelErrorCode;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
  constructor(code: ModelErrorCode, message: string, details: ModelErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ModelError";
    this.code = code;
    this.retryable = RETRYABLE_MODEL_ERROR_CODES.has(code);
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

/**
 * Thrown when the call's signal fires. Named "AbortError" like fetch's, so
 * code that checks `error.name === "AbortError"` treats both alike; `cause`
 * is the signal's reason.
 */
export class ModelAbortError extends ModelError {
  constructor(reason?: unknown) {
    super("ABORTED", "the model call was aborted", { cause: reason });
    this.name = "AbortError";
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/**
 * The engine's interrupt() pause (seed 004 §8.1.4.5). Models and the tool node
 * rethrow it untouched: it is control flow, never a failure to wrap or report.
 */
export function isGraphInterruptLike(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { name?: unknown; isGraphInterrupt?: unknown };
  return e.name === "GraphInterrupt" || Boolean(e.isGraphInterrupt);
}
