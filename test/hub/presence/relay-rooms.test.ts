/**
 * PresenceRelay forgets a room when its last member leaves: joining many rooms
 * over a hub's life must not leave one entry per room ever joined. Seen from
 * outside through the garbage collector: the room descriptors handed to
 * `join` are collectable once every room is empty.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { PresenceRelay, encodeBase64Update, type PresenceRoomRef } from "../../../hub/presence/index.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { ManualClock, principal, rawUpdate } from "./helpers.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const ROOMS = 500;

/** Joins and leaves ROOMS rooms (a thread room per connection, then one shared queue room); returns weak refs to their descriptors. */
function churn(relay: PresenceRelay): Array<WeakRef<PresenceRoomRef>> {
  const refs: Array<WeakRef<PresenceRoomRef>> = [];
  const member = { sendEvent: () => {} };
  for (let i = 0; i < ROOMS; i++) {
    const connection = `c${i}`;
    relay.connect(connection, member);
    const thread: PresenceRoomRef = { tenant: "acme", kind: "thread", id: `t-${i}` };
    const queue: PresenceRoomRef = { tenant: "acme", kind: "queue", id: `q-${i % 7}` };
    relay.join(thread, connection);
    relay.join(queue, connection);
    refs.push(new WeakRef(thread), new WeakRef(queue));
    // Half leave explicitly, half by closing the connection.
    if (i % 2 === 0) {
      relay.leave({ ...thread }, connection);
      relay.leave({ ...queue }, connection);
    }
    relay.disconnect(connection);
  }
  return refs;
}

describe("PresenceRelay rooms", () => {
  it("keeps nothing of a room once its last member left", async () => {
    const relay = new PresenceRelay();
    try {
      const refs = churn(relay);
      expect(relay.counts()).toMatchObject({ rooms: 0, connections: 0, memberships: 0 });
      // WeakRefs stay alive until the current job ends: let it end, then collect.
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    } finally {
      relay.dispose();
    }
  });

  it("relays as before in a room that was emptied and joined again", () => {
    const clock = new ManualClock();
    const relay = new PresenceRelay({ clock });
    try {
      const room: PresenceRoomRef = { tenant: "acme", kind: "queue", id: "q-again" };
      relay.connect("a", { sendEvent: () => {} });
      relay.join(room, "a");
      relay.leave(room, "a");
      const seen: ProtocolEvent[] = [];
      relay.connect("b", { sendEvent: () => {} });
      relay.connect("c", { sendEvent: (e) => seen.push(e) });
      relay.join({ ...room }, "b");
      relay.join({ ...room }, "c");
      const update = encodeBase64Update(rawUpdate([{ clientID: 7, clock: 1, json: JSON.stringify({ cursor: 1 }) }]));
      expect(relay.update(room, "b", principal("bob", "Bob"), update)).toMatchObject({ ok: true });
      clock.tick();
      expect(seen.map((e) => [e.method, e.params.data])).toEqual([["presence", { update: expect.any(String), queue: "q-again" }]]);
    } finally {
      relay.dispose();
    }
  });
});
