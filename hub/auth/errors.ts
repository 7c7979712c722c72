/**
 * Auth failures as data: what the hub turns into an HTTP status before the
 * upgrade, or into close code 4000 + status after it (see hub/protocol).
 */
import type { ErrorCode } from "../protocol/index.ts";

export type AuthFailure =
  | { ok: false; status: 401; code: Extract<ErrorCode, "unauthenticated">; message: string }
  | { ok: false; status: 403; code: Extract<ErrorCode, "permission_denied">; message: string };

export function unauthenticated(message: string): AuthFailure {
  return { ok: false, status: 401, code: "unauthenticated", message };
}

export function permissionDenied(message: string): AuthFailure {
  return { ok: false, status: 403, code: "permission_denied", message };
}

export type AuthConfigErrorCode = "AUTH_ERR_EMPTY_SECRET" | "AUTH_ERR_WEAK_SECRET";

/** A misconfiguration found at startup; thrown, never returned per request. */
export class AuthConfigError extends Error {
  override readonly name = "AuthConfigError";
  readonly code: AuthConfigErrorCode;

  constructor(code: AuthConfigErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
