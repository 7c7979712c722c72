/**
 * Exactly-once application: duplicates from replays are dropped, a replay
 * of channels the client did not have before is applied, resync resets the
 * high-water mark.
 */
import { describe, expect, it } from "vitest";
import { admit, openGate, type SeqGate } from "../../client/index.ts";
import { ENDED_KEPT, disconnected, subscribed, unsubscribed } from "../../client/seq-gate.ts";
import type { ProtocolEvent, SubscriptionFilter } from "../../hub/protocol/index.ts";
import { ev } from "../support/protocol-docs.ts";

function run(gate: SeqGate, events: ProtocolEvent[]): { gate: SeqGate; applied: Array<number | undefined> } {
  const applied: Array<number | undefined> = [];
  let g = gate;
  for (const e of events) {
    const d = admit(g, e);
    g = d.gate;
    if (d.apply) applied.push(e.seq);
  }
  return { gate: g, applied };
}

const values = (seq: number) => ev("values", { n: seq }, { seq });
const input = (seq: number) => ev("input.requested", { interrupt_id: `i${seq}`, payload: null }, { seq });

describe("seq gate", () => {
  it("drops events at or below the last seq applied, outside a replay", () => {
    const { applied, gate } = run(subscribed(openGate(), { channels: ["values"] }), [values(1), values(2), values(2), values(1), values(3)]);
    expect(applied).toEqual([1, 2, 3]);
    expect(gate.lastSeq).toBe(3);
  });

  it("applies older events of a new subscription's replay that the old filters could not have delivered", () => {
    const valuesOnly: SubscriptionFilter = { channels: ["values"] };
    const withInput: SubscriptionFilter = { channels: ["values", "input"] };
    let gate = subscribed(openGate(), valuesOnly);
    gate = run(gate, [values(1), values(3)]).gate;
    gate = subscribed(gate, withInput);
    // The second subscription's replay: baseline + run events, in seq order.
    const { applied, gate: after } = run(gate, [values(1), input(2), input(2), values(3), input(4)]);
    expect(applied).toEqual([2, 4]);
    // The window closed with the first newer event: an old one is a duplicate again.
    expect(admit(after, input(2)).apply).toBe(false);
  });

  it("after a reconnect, a second subscription's replay keeps what the first did not bring", () => {
    const a: SubscriptionFilter = { channels: ["values"] };
    const b: SubscriptionFilter = { channels: ["input"] };
    let gate = disconnected({ ...openGate(10), delivering: [a, b] });
    gate = subscribed(gate, a, 10);
    const first = run(gate, [values(10), values(11), values(13)]);
    gate = subscribed(first.gate, b, 10);
    const second = run(gate, [input(9), input(12), input(14)]);
    // Nothing at or below `since` is part of a replay: 10 and 9 are duplicates.
    expect([...first.applied, ...second.applied]).toEqual([11, 13, 12, 14]);
  });

  it("a filter whose subscription ended still covers what it delivered: a view that comes back applies nothing twice", () => {
    const view: SubscriptionFilter = { channels: ["values", "input"] };
    let gate = subscribed(openGate(), view);
    gate = run(gate, [values(1), input(2), values(3)]).gate;
    gate = unsubscribed(gate, view);
    // Events the ended filter never saw (another subscription's, later ones) still apply.
    const again: SubscriptionFilter = { channels: ["values", "input"] };
    gate = subscribed({ ...gate, lastSeq: 5 }, again);
    const { applied } = run(gate, [values(1), input(2), values(3), input(4), values(6)]);
    expect(applied).toEqual([4, 6]);
  });

  it("remembers one entry per distinct ended filter, and at most ENDED_KEPT", () => {
    let gate = openGate();
    for (let i = 0; i < 3; i++) {
      const same: SubscriptionFilter = { channels: ["input", "values"] };
      gate = unsubscribed(subscribed(gate, same), same);
    }
    expect(gate.ended).toHaveLength(1);
    for (let depth = 0; depth < ENDED_KEPT + 5; depth++) {
      const f: SubscriptionFilter = { channels: ["values"], depth };
      gate = unsubscribed(subscribed(gate, f), f);
    }
    expect(gate.ended).toHaveLength(ENDED_KEPT);
    // A filter that is not delivering ends nothing.
    expect(unsubscribed(gate, { channels: ["tasks"] })).toBe(gate);
  });

  it("always applies resync and moves the mark to its head_seq; unnumbered events pass", () => {
    const resync = ev("resync", { reason: "unknown_event_id", head_seq: 4, snapshot: { values: null, interrupts: [], run: { run_id: null, status: "idle" } } }, { seq: 4 });
    const presence = ev("presence", { update: "AA==" });
    const { applied, gate } = run(openGate(9), [resync, values(4), values(5), presence]);
    expect(applied).toEqual([4, 5, undefined]);
    expect(gate.lastSeq).toBe(5);
  });
});
