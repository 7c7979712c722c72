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

/** The presence state schema's bounds (docs/PROTOCOL.md, Presence). */
export const PRESENCE_STATE_LIMITS = { maxFields: 16, maxStringBytes: 256 } as const;

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/**
 * C0 and C1 controls, DEL, and the bidi embeddings/overrides/isolates: what lets a
 * label rewrite another watcher's terminal line or reorder a page's text.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * The one presence state schema: a flat object of at most 16 fields named with
 * letters, digits and `_`; each value a string (at most 256 bytes, no control or
 * bidi characters), a finite number, a boolean or null. `user` is not checked:
 * the hub replaces it with the authenticated identity. Returns why not, or undefined.
 */
export function checkPresenceState(state: AwarenessState): string | undefined {
  const fields = Object.entries(state).filter(([key]) => key !== "user");
  if (fields.length > PRESENCE_STATE_LIMITS.maxFields) return `a state has at most ${PRESENCE_STATE_LIMITS.maxFields} fields, got ${fields.length}`;
  for (const [key, value] of fields) {
    if (!FIELD_NAME.test(key)) return `field name ${JSON.stringify(key)} must be letters, digits and _ (at most 64)`;
    if (value === null || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) continue;
    if (typeof value !== "string") return `${key}: must be a string, a number, a boolean or null`;
    if (Buffer.byteLength(value) > PRESENCE_STATE_LIMITS.maxStringBytes) return `${key}: at most ${PRESENCE_STATE_LIMITS.maxStringBytes} bytes`;
    if (CONTROL_CHARACTERS.test(value)) return `${key}: control characters (terminal escapes, carriage returns, bidi overrides) are not allowed`;
  }
  return undefined;
}

/** Reads every entry of an awareness update and checks each state against the schema, or says why it is refused. */
export function decodeAwarenessEntries(update: Uint8Array, limits: DecodeLimits): DecodedUpdate {
  const decoded = decodeAwareness(update, limits);
  if (!decoded.ok) return presenceRejection(decoded.reason, decoded.message);
  for (const { state } of decoded.entries) {
    const invalid = state === null ? undefined : checkPresenceState(state);
    if (invalid !== undefined) return presenceRejection("malformed_update", `presence state: ${invalid}`);
  }
  return decoded;
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
