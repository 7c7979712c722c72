/**
 * Why a presence update was refused, as data: each reason maps to the
 * protocol error code the hub replies with (see hub/protocol/errors.ts).
 */
import type { ErrorCode } from "../protocol/index.ts";

export const PRESENCE_REJECTIONS = {
  /** The connection sent presence for a room it has not joined. */
  not_joined: "invalid_argument",
  /** Not base64, not a y-protocols awareness update, or a state that is not a JSON object. */
  malformed_update: "invalid_argument",
  /** The update names a clientID that another connection (or the hub) owns. */
  foreign_client: "permission_denied",
  /** The connection would own more clientIDs than `maxClientsPerConnection`. */
  too_many_clients: "payload_too_large",
  /** One state's JSON exceeds `maxStateBytes`. */
  state_too_large: "payload_too_large",
} as const satisfies Record<string, ErrorCode>;

export type PresenceRejectReason = keyof typeof PRESENCE_REJECTIONS;

export interface PresenceRejection {
  readonly ok: false;
  readonly code: ErrorCode;
  readonly reason: PresenceRejectReason;
  readonly message: string;
}

/** Nothing of a rejected update is applied or relayed. */
export type PresenceResult = { readonly ok: true } | PresenceRejection;

export function presenceRejection(reason: PresenceRejectReason, message: string): PresenceRejection {
  return { ok: false, code: PRESENCE_REJECTIONS[reason], reason, message };
}
