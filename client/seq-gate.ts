/**
 * Exactly-once application of a thread's events, as pure functions. The hub
 * numbers a thread's events with `seq` and sends each at most once per
 * connection, so an event at or below the last seq applied is a duplicate —
 * except inside the replay that follows a subscribe: there an older event
 * that no filter already delivering could have brought is new to this
 * client (a channel it did not have before, or a second subscription's
 * share after a reconnect). The replay window closes at the first event
 * newer than the last seq at subscribe time. A `resync` always applies and
 * nothing at or below its `head_seq` applies after it.
 */
import { matchesSubscription, type ProtocolEvent, type SubscriptionFilter } from "../hub/protocol/index.ts";

export interface ReplayWindow {
  /** The subscribe's `since`: a replay never holds anything at or below it. */
  after: number;
  /** The last seq applied when the subscribe succeeded. */
  until: number;
  /** Filters that were delivering before it. */
  covered: readonly SubscriptionFilter[];
  /** Older seqs applied inside the window (a replay never repeats, but be sure). */
  applied: readonly number[];
}

export interface SeqGate {
  /** Highest seq applied. */
  lastSeq: number;
  /** Seqs at or below this are in the last resync's snapshot: never applied again. */
  floor: number;
  /** Filters delivering on the current connection, in subscription order. */
  delivering: readonly SubscriptionFilter[];
  window: ReplayWindow | null;
}

export const openGate = (lastSeq = 0): SeqGate => ({ lastSeq, floor: 0, delivering: [], window: null });

/** The decision for one event and the gate after it. */
export function admit(gate: SeqGate, event: ProtocolEvent): { apply: boolean; gate: SeqGate } {
  if (event.method === "resync") {
    const head = event.params.data.head_seq;
    return { apply: true, gate: { ...gate, lastSeq: head, floor: head, window: null } };
  }
  const seq = event.seq;
  if (seq === undefined) return { apply: true, gate };
  if (seq <= gate.floor) return { apply: false, gate };
  const w = gate.window;
  if (seq > gate.lastSeq) return { apply: true, gate: { ...gate, lastSeq: seq, window: w && seq > w.until ? null : w } };
  if (!w || seq <= w.after || w.applied.includes(seq) || w.covered.some((filter) => matchesSubscription(event, filter))) return { apply: false, gate };
  return { apply: true, gate: { ...gate, window: { ...w, applied: [...w.applied, seq] } } };
}

/** A subscribe (with `since`, if any) succeeded: its replay follows at once, before any later frame. */
export function subscribed(gate: SeqGate, filter: SubscriptionFilter, since?: number): SeqGate {
  const after = Math.max(gate.floor, since ?? 0);
  const window = gate.lastSeq > after ? { after, until: gate.lastSeq, covered: gate.delivering, applied: [] } : null;
  return { ...gate, delivering: [...gate.delivering, filter], window };
}

export function unsubscribed(gate: SeqGate, filter: SubscriptionFilter): SeqGate {
  return { ...gate, delivering: gate.delivering.filter((f) => f !== filter) };
}

/** A new connection delivers nothing until it resubscribes; `lastSeq` is kept for `since`. */
export function disconnected(gate: SeqGate): SeqGate {
  return { ...gate, delivering: [], window: null };
}
