/**
 * Presence: y-protocols awareness updates (base64 on the wire, read and
 * written by hub/protocol's one codec, without a Y.Doc), and a pure reducer
 * with awareness' rules (a higher clock wins; a null state removes the client
 * and leaves a tombstone so that an older update does not bring it back).
 */
import { awarenessFromBase64, awarenessToBase64, decodeAwareness, encodeAwareness } from "../../hub/protocol/index.ts";

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

/** Decodes a base64 awareness update (hub/protocol's codec); throws on malformed input. */
export function decodeAwarenessUpdate(base64: string): AwarenessEntry[] {
  const bytes = awarenessFromBase64(base64);
  if (bytes === undefined) throw new Error("an awareness update must be base64");
  const decoded = decodeAwareness(bytes);
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.entries.map((e) => ({ clientId: e.clientID, clock: e.clock, state: e.state === null ? null : { ...e.state } }));
}

/** Encodes entries as a base64 awareness update (what `presence.update` carries). */
export function encodeAwarenessUpdate(entries: readonly AwarenessEntry[]): string {
  return awarenessToBase64(encodeAwareness(entries.map((e) => ({ clientID: e.clientId, clock: e.clock, state: e.state }))));
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
