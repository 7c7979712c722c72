/**
 * Reading and stamping y-protocols awareness updates, and their base64 form
 * on the wire. An update is `varUint count`, then per client `varUint
 * clientID, varUint clock, varString JSON(state | null)` (y-protocols'
 * PROTOCOL.md). The room reads it once, strictly, before y-protocols sees
 * it: ownership and size limits are checked on the clientIDs and states first.
 */
import { createDecoder, hasContent, readVarUint, readVarUint8Array } from "lib0/decoding";
import { modifyAwarenessUpdate } from "y-protocols/awareness";
import type { Principal } from "../auth/index.ts";
import { isRecord } from "../protocol/index.ts";
import { presenceRejection } from "./errors.ts";
import type { PresenceRejection } from "./errors.ts";

/** The identity the hub writes into every state; whatever the client sent there is replaced. */
export interface PresenceUser {
  readonly sub: string;
  readonly name: string;
}

export type AwarenessState = Record<string, unknown>;

export interface AwarenessEntry {
  readonly clientID: number;
  readonly clock: number;
  /** `null` removes the client's state. */
  readonly state: AwarenessState | null;
}

export interface DecodeLimits {
  readonly maxEntries: number;
  readonly maxStateBytes: number;
}

export type DecodedUpdate = { readonly ok: true; readonly entries: readonly AwarenessEntry[] } | PresenceRejection;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads every entry of an awareness update, or says why it is refused. */
export function decodeAwarenessEntries(update: Uint8Array, limits: DecodeLimits): DecodedUpdate {
  try {
    const decoder = createDecoder(update);
    const count = readVarUint(decoder);
    if (count > limits.maxEntries) {
      return presenceRejection("too_many_clients", `an update may carry at most ${limits.maxEntries} states, got ${count}`);
    }
    const entries: AwarenessEntry[] = [];
    for (let i = 0; i < count; i++) {
      const clientID = readVarUint(decoder);
      const clock = readVarUint(decoder);
      const bytes = readVarUint8Array(decoder); // throws past the end of `update`
      if (bytes.length > limits.maxStateBytes) {
        return presenceRejection("state_too_large", `a state may be at most ${limits.maxStateBytes} bytes, got ${bytes.length}`);
      }
      const json: unknown = JSON.parse(utf8.decode(bytes));
      if (json !== null && !isState(json)) return malformed("each state must be a JSON object or null");
      entries.push({ clientID, clock, state: json });
    }
    if (hasContent(decoder)) return malformed("trailing bytes after the last state");
    return { ok: true, entries };
  } catch {
    // lib0's end-of-array / integer-range errors, invalid UTF-8, invalid JSON.
    return malformed("not a y-protocols awareness update");
  }
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

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (Buffer.from would silently skip invalid characters). */
export function decodeBase64Update(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  // A plain Uint8Array, not a view into Buffer's shared pool.
  return new Uint8Array(Buffer.from(text, "base64"));
}

export function encodeBase64Update(update: Uint8Array): string {
  return Buffer.from(update.buffer, update.byteOffset, update.byteLength).toString("base64");
}

function malformed(message: string): PresenceRejection {
  return presenceRejection("malformed_update", message);
}
