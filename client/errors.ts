/**
 * Typed client errors. Every failure a HubClient call can report is a
 * HubClientError with a stable `code`: the hub's error codes (hub/protocol
 * ERROR_CODES) plus a few that only a client can observe (timeout, lost
 * connection, closed client, undecodable reply). `retryable` means the same
 * call may succeed later unchanged.
 */
import { CLOSE_CODES, ERROR_CODES, isErrorCode, type ErrorCode, type ErrorResponse } from "../hub/protocol/index.ts";

export const CLIENT_ERROR_CODES = {
  timeout: { retryable: true, description: "No response within the request timeout; the command may or may not have been applied." },
  connection_lost: { retryable: true, description: "The socket closed before the response arrived; the command may or may not have been applied." },
  client_closed: { retryable: false, description: "The client was closed (or stopped reconnecting) before the call completed." },
  protocol_error: { retryable: false, description: "The hub sent a frame the client cannot decode, or a reply without a field the client needs." },
} as const;

export type ClientOnlyErrorCode = keyof typeof CLIENT_ERROR_CODES;
export type HubClientErrorCode = ErrorCode | ClientOnlyErrorCode;

export interface HubClientErrorInit {
  /** The command that failed, e.g. "input.respond". */
  method?: string | undefined;
  details?: Record<string, unknown> | undefined;
  path?: Array<string | number> | undefined;
  /** The WebSocket close code or refused-upgrade HTTP status behind a connection error. */
  closeCode?: number | undefined;
}

export function isRetryableCode(code: HubClientErrorCode): boolean {
  return isErrorCode(code) ? ERROR_CODES[code].retryable : CLIENT_ERROR_CODES[code].retryable;
}

export class HubClientError extends Error {
  readonly code: HubClientErrorCode;
  readonly retryable: boolean;
  readonly method: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly path: Array<string | number> | undefined;
  readonly closeCode: number | undefined;

  constructor(code: HubClientErrorCode, message: string, init: HubClientErrorInit = {}) {
    super(message);
    this.name = "HubClientError";
    this.code = code;
    this.retryable = isRetryableCode(code);
    this.method = init.method;
    this.details = init.details;
    this.path = init.path;
    this.closeCode = init.closeCode;
  }
}

const ENVELOPE_FIELDS: ReadonlySet<string> = new Set(["type", "id", "error", "message", "path", "details", "thread_id", "meta", "stacktrace"]);

/**
 * The error of an `{ type: "error" }` reply. Extra top-level fields a hub
 * adds (e.g. `winner` on `already_answered`) are folded into `details`.
 */
export function errorFromResponse(response: ErrorResponse, method?: string): HubClientError {
  const extras = Object.entries(response).filter(([key]) => !ENVELOPE_FIELDS.has(key));
  const details = extras.length === 0 ? response.details : { ...response.details, ...Object.fromEntries(extras) };
  return new HubClientError(response.error, response.message, { method, details, path: response.path });
}

/** Close codes after which reconnecting cannot help (4403, 4404). */
const FATAL_CLOSES: ReadonlySet<number> = new Set([CLOSE_CODES.permission_denied, CLOSE_CODES.not_found]);

/**
 * What a close code (or refused upgrade status, 4000 is added) means. Null
 * for ordinary drops (1000, 1001, 1006, 4503...) that a reconnect repairs.
 */
export function fatalCloseError(code: number, reason: string): HubClientError | null {
  if (!FATAL_CLOSES.has(code)) return null;
  const kind: ErrorCode = code === CLOSE_CODES.not_found ? "not_found" : "permission_denied";
  return new HubClientError(kind, reason || `the hub closed the connection (${code})`, { closeCode: code });
}

/** The close code a refused upgrade stands for (HTTP 401 → 4401...), or null. */
export function closeCodeOfStatus(status: number): number | null {
  return status >= 400 && status < 600 ? 4000 + status : null;
}
