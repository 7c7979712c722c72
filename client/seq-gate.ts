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
 *
 * A filter keeps covering what it delivered after its subscription ends: a
 * page that subscribes, leaves and comes back (the hub replays the current
 * run to every subscription without `since`) must not apply the run's
 * events again — that re-opened answered questions and listed them twice.
 */
import { matchesSubscription, type ProtocolEvent, type SubscriptionFilter } from "../hub/protocol/index.ts";

/** A filter that delivered every event it matches up to `until` (a seq). */
export interface Coverage {
  filter: SubscriptionFilter;
  until: number;
}

export interface ReplayWindow {
  /** The subscribe's `since`: a replay never holds anything at or below it. */
  after: number;
  /** The last seq applied when the subscribe succeeded. */
  until: number;
  /** What was delivered before it: the filters delivering then, and those that ended. */
  covered: readonly Coverage[];
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
  /** Filters whose subscription ended (unsubscribed, connection lost), one per distinct filter, newest last. */
  ended: readonly Coverage[];
  window: ReplayWindow | null;
}

/**
 * Ended filters remembered (distinct ones: a view that comes back with the same
 * filter reuses its entry). Past this the oldest is forgotten, and a replay it
 * alone covered could apply again.
 */
export const ENDED_KEPT = 16;

export const openGate = (lastSeq = 0): SeqGate => ({ lastSeq, floor: 0, delivering: [], ended: [], window: null });

const filterKey = (f: SubscriptionFilter): string => JSON.stringify([[...f.channels].sort(), f.namespaces ?? null, f.depth ?? null]);

/** `ended` with these filters added as covering up to `until`. */
function endFilters(ended: readonly Coverage[], filters: readonly SubscriptionFilter[], until: number): Coverage[] {
  let out = [...ended];
  for (const filter of filters) {
    const key = filterKey(filter);
    const before = out.find((c) => filterKey(c.filter) === key);
    out = [...out.filter((c) => c !== before), { filter, until: Math.max(until, before?.until ?? 0) }];
  }
  return out.slice(-ENDED_KEPT);
}

/** The decision for one event and the gate after it. */
export function admit(gate: SeqGate, event: ProtocolEvent): { apply: boolean; gate: SeqGate } {
  if (event.method === "resync") {
    const head = event.params.data.head_seq;
    // Nothing at or below the floor applies again: coverage that ends there is moot.
    return { apply: true, gate: { ...gate, lastSeq: head, floor: head, ended: gate.ended.filter((c) => c.until > head), window: null } };
  }
  const seq = event.seq;
  if (seq === undefined) return { apply: true, gate };
  if (seq <= gate.floor) return { apply: false, gate };
  const w = gate.window;
  if (seq > gate.lastSeq) return { apply: true, gate: { ...gate, lastSeq: seq, window: w && seq > w.until ? null : w } };
  if (!w || seq <= w.after || w.applied.includes(seq) || w.covered.some((c) => seq <= c.until && matchesSubscription(event, c.filter))) return { apply: false, gate };
  return { apply: true, gate: { ...gate, window: { ...w, applied: [...w.applied, seq] } } };
}

/** A subscribe (with `since`, if any) succeeded: its replay follows at once, before any later frame. */
export function subscribed(gate: SeqGate, filter: SubscriptionFilter, since?: number): SeqGate {
  const after = Math.max(gate.floor, since ?? 0);
  const covered = [...gate.delivering.map((f) => ({ filter: f, until: gate.lastSeq })), ...gate.ended];
  const window = gate.lastSeq > after ? { after, until: gate.lastSeq, covered, applied: [] } : null;
  return { ...gate, delivering: [...gate.delivering, filter], window };
}

/** The hub confirmed an unsubscribe (or the socket is gone): the filter delivered up to the last seq applied. */
export function unsubscribed(gate: SeqGate, filter: SubscriptionFilter): SeqGate {
  if (!gate.delivering.includes(filter)) return gate;
  return { ...gate, delivering: gate.delivering.filter((f) => f !== filter), ended: endFilters(gate.ended, [filter], gate.lastSeq) };
}

/** A new connection delivers nothing until it resubscribes; `lastSeq` is kept for `since`. */
export function disconnected(gate: SeqGate): SeqGate {
  return { ...gate, delivering: [], ended: endFilters(gate.ended, gate.delivering, gate.lastSeq), window: null };
}
