/**
 * The one codec of y-protocols awareness updates for the hub and every
 * client: `varUint count`, then per client `varUint clientID, varUint clock,
 * varString JSON(state | null)` (y-protocols' PROTOCOL.md), base64 on the
 * wire (`presence.update`). Read with lib0 (Yjs' own binary encoding library),
 * strictly: limits on count and bytes are checked before a state is parsed,
 * and trailing bytes, a non-object state, bad UTF-8 or bad JSON refuse the
 * whole update. Runs in browsers (lib0 picks atob/btoa there, Buffer in Node).
 *
 * Not y-protocols' own Awareness: it needs a Y.Doc and applies updates to a
 * shared instance; the hub must check ownership and limits before anything
 * is applied, and the SDK keeps presence as a pure reducer's state.
 */
import { fromBase64, toBase64 } from "lib0/buffer";
import { createDecoder, hasContent, readVarUint, readVarUint8Array } from "lib0/decoding";
import { createEncoder, toUint8Array, writeVarString, writeVarUint } from "lib0/encoding";
import { isRecord } from "./is-record.ts";

export interface AwarenessEntry {
  readonly clientID: number;
  readonly clock: number;
  /** `null` removes the client's state. */
  readonly state: Record<string, unknown> | null;
}

export interface AwarenessLimits {
  readonly maxEntries: number;
  readonly maxStateBytes: number;
}

export type AwarenessRefusal = "too_many_clients" | "state_too_large" | "malformed_update";

export type AwarenessDecoded = { readonly ok: true; readonly entries: readonly AwarenessEntry[] } | { readonly ok: false; readonly reason: AwarenessRefusal; readonly message: string };

const NO_LIMITS: AwarenessLimits = { maxEntries: Infinity, maxStateBytes: Infinity };
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads every entry of an awareness update, or says why it is refused. */
export function decodeAwareness(update: Uint8Array, limits: AwarenessLimits = NO_LIMITS): AwarenessDecoded {
  const malformed = (message: string): AwarenessDecoded => ({ ok: false, reason: "malformed_update", message });
  try {
    const decoder = createDecoder(update);
    const count = readVarUint(decoder);
    if (count > limits.maxEntries) return { ok: false, reason: "too_many_clients", message: `an update may carry at most ${limits.maxEntries} states, got ${count}` };
    const entries: AwarenessEntry[] = [];
    for (let i = 0; i < count; i++) {
      const clientID = readVarUint(decoder);
      const clock = readVarUint(decoder);
      const bytes = readVarUint8Array(decoder); // throws past the end of `update`
      if (bytes.length > limits.maxStateBytes) return { ok: false, reason: "state_too_large", message: `a state may be at most ${limits.maxStateBytes} bytes, got ${bytes.length}` };
      const json: unknown = JSON.parse(utf8.decode(bytes));
      if (json !== null && !isRecord(json)) return malformed("each state must be a JSON object or null");
      entries.push({ clientID, clock, state: json });
    }
    if (hasContent(decoder)) return malformed("trailing bytes after the last state");
    return { ok: true, entries };
  } catch {
    // lib0's end-of-array / integer-range errors, invalid UTF-8, invalid JSON.
    return malformed("not a y-protocols awareness update");
  }
}

/** Writes entries as an awareness update. */
export function encodeAwareness(entries: readonly AwarenessEntry[]): Uint8Array {
  const encoder = createEncoder();
  writeVarUint(encoder, entries.length);
  for (const e of entries) {
    writeVarUint(encoder, e.clientID);
    writeVarUint(encoder, e.clock);
    writeVarString(encoder, JSON.stringify(e.state));
  }
  return toUint8Array(encoder);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (Buffer.from and atob would skip or accept what is not base64); undefined when it is not. */
export function awarenessFromBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  // A plain Uint8Array, not a view into Buffer's shared pool.
  return new Uint8Array(fromBase64(text));
}

export function awarenessToBase64(update: Uint8Array): string {
  return toBase64(update);
}
