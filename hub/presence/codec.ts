/**
 * The hub's side of awareness updates: the wire codec is hub/protocol's
 * (shared with the SDK); here its refusals become presence rejections, and
 * stampIdentity writes the authenticated user into every state.
 */
import { modifyAwarenessUpdate } from "y-protocols/awareness";
import type { Principal } from "../auth/index.ts";
import { awarenessFromBase64, awarenessToBase64, decodeAwareness, isRecord, type AwarenessEntry, type AwarenessLimits } from "../protocol/index.ts";
import { presenceRejection } from "./errors.ts";
import type { PresenceRejection } from "./errors.ts";

/** The identity the hub writes into every state; whatever the client sent there is replaced. */
export interface PresenceUser {
  readonly sub: string;
  readonly name: string;
}

export type AwarenessState = Record<string, unknown>;

export type { AwarenessEntry };
export type DecodeLimits = AwarenessLimits;

export type DecodedUpdate = { readonly ok: true; readonly entries: readonly AwarenessEntry[] } | PresenceRejection;

/** Reads every entry of an awareness update, or says why it is refused. */
export function decodeAwarenessEntries(update: Uint8Array, limits: DecodeLimits): DecodedUpdate {
  const decoded = decodeAwareness(update, limits);
  return decoded.ok ? decoded : presenceRejection(decoded.reason, decoded.message);
}

/**
 * Overwrites `user` in every non-null state with the authenticated identity,
 * so a client can never pose as someone else. Only `{ sub, name }` is written:
 * cosmetic fields (colour, avatar) belong outside `user`.
 */
export function stampIdentity(update: Uint8Array, principal: Principal): Uint8Array {
  const user: PresenceUser = { sub: principal.sub, name: principal.name };
  return modifyAwarenessUpdate(update, (state: unknown) => (isState(state) ? { ...state, user } : null));
}

export const isState: (value: unknown) => value is AwarenessState = isRecord;

/** Strict base64 (Buffer.from would silently skip invalid characters). */
export const decodeBase64Update = awarenessFromBase64;
export const encodeBase64Update = awarenessToBase64;
