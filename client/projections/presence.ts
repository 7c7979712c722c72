/**
 * Presence: y-protocols awareness updates (base64 on the wire) decoded
 * without a Y.Doc, and a pure reducer with awareness' rules (a higher clock
 * wins; a null state removes the client and leaves a tombstone so that an
 * older update does not bring it back). Wire format, per y-protocols:
 * varUint(count), then per client varUint(clientID), varUint(clock),
 * varString(JSON state).
 */

export interface AwarenessEntry {
  clientId: number;
  clock: number;
  /** null = the client left. */
  state: Record<string, unknown> | null;
}

export interface PresenceState {
  clients: Readonly<Record<number, { clock: number; state: Record<string, unknown> | null }>>;
}

export interface PresenceEntry {
  clientId: number;
  state: Record<string, unknown>;
}

export const emptyPresence = (): PresenceState => ({ clients: {} });

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

class Reader {
  #pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  varUint(): number {
    let value = 0;
    let mult = 1;
    for (;;) {
      const byte = this.bytes[this.#pos++];
      if (byte === undefined) throw new Error("awareness update ends early");
      value += (byte & 0x7f) * mult;
      if (byte < 0x80) return value;
      mult *= 128;
      if (mult > 2 ** 53) throw new Error("awareness varUint too large");
    }
  }

  varString(): string {
    const length = this.varUint();
    const end = this.#pos + length;
    if (end > this.bytes.length) throw new Error("awareness update ends early");
    const text = decoder.decode(this.bytes.subarray(this.#pos, end));
    this.#pos = end;
    return text;
  }
}

function writeVarUint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Decodes a base64 awareness update; throws on malformed input. */
export function decodeAwarenessUpdate(base64: string): AwarenessEntry[] {
  const reader = new Reader(base64ToBytes(base64));
  const count = reader.varUint();
  const entries: AwarenessEntry[] = [];
  for (let i = 0; i < count; i++) {
    const clientId = reader.varUint();
    const clock = reader.varUint();
    const parsed: unknown = JSON.parse(reader.varString());
    const state = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : null;
    entries.push({ clientId, clock, state });
  }
  return entries;
}

/** Encodes entries as a base64 awareness update (what `presence.update` carries). */
export function encodeAwarenessUpdate(entries: readonly AwarenessEntry[]): string {
  const out: number[] = [];
  writeVarUint(out, entries.length);
  for (const e of entries) {
    writeVarUint(out, e.clientId);
    writeVarUint(out, e.clock);
    const text = encoder.encode(JSON.stringify(e.state));
    writeVarUint(out, text.length);
    for (const byte of text) out.push(byte);
  }
  return bytesToBase64(Uint8Array.from(out));
}

/** Applies decoded entries with awareness' clock rules. */
export function applyAwareness(state: PresenceState, entries: readonly AwarenessEntry[]): PresenceState {
  let clients: Record<number, { clock: number; state: Record<string, unknown> | null }> | undefined;
  for (const e of entries) {
    const prev = (clients ?? state.clients)[e.clientId];
    const newer = prev === undefined || prev.clock < e.clock || (prev.clock === e.clock && e.state === null && prev.state !== null);
    if (!newer) continue;
    clients ??= { ...state.clients };
    clients[e.clientId] = { clock: e.clock, state: e.state };
  }
  return clients ? { clients } : state;
}

/** Applies a base64 update; a malformed one leaves the state as it was. */
export function reducePresence(state: PresenceState, update: string): PresenceState {
  try {
    return applyAwareness(state, decodeAwarenessUpdate(update));
  } catch {
    return state;
  }
}

/** The clients present now, as a list of their states. */
export function presenceList(state: PresenceState): PresenceEntry[] {
  const list: PresenceEntry[] = [];
  for (const [id, entry] of Object.entries(state.clients)) if (entry.state !== null) list.push({ clientId: Number(id), state: entry.state });
  return list.sort((a, b) => a.clientId - b.clientId);
}
