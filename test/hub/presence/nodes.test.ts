/**
 * Presence rooms of two nodes linked by BusPresenceLink over a MemoryEventBus
 * (the bus adapter several hubs in one process share): each room shows the
 * other node's members, a late room gets their states, another node's
 * clientID cannot be claimed, and a state that timed out on one node because
 * its renewals stopped arriving is not removed on the node that owns it.
 */
import { expect, it, vi } from "vitest";
import { BusPresenceLink } from "../../../hub/presence/index.ts";
import { MemoryEventBus } from "../../../hub/storage/memory/event-bus.ts";
import type { EventBus } from "../../../hub/threads/index.ts";
import { Harness, ROOM, principal } from "./helpers.ts";

const WAIT = { timeout: 2_000, interval: 1 };

function pair(options: { outdatedTimeoutMs?: number; sweepIntervalMs?: number } = {}) {
  const bus = new MemoryEventBus();
  const a = new Harness({ ...options, link: new BusPresenceLink({ bus, nodeId: "a" }) });
  const b = new Harness({ ...options, link: new BusPresenceLink({ bus, nodeId: "b" }) });
  return { a, b, bus };
}

/** Lets the bus deliver, then runs each node's due flushes. */
async function settle(...nodes: Harness[]): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    for (const node of nodes) node.clock.tick();
  }
}

it("shows each node's members on the other, to a late room too; another node's clientID is not claimable", async () => {
  const { a, b, bus } = pair();
  const ann = a.connect("c-ann", principal("ann", "Ann"));
  const bob = b.connect("c-bob", principal("bob", "Bob"));
  await settle(a, b);
  expect(a.set("c-ann", { looking_at: "q1" })).toEqual([{ ok: true }]);
  await settle(a, b);
  await vi.waitFor(() => expect(bob.peers().get(ann.clientID)).toMatchObject({ user: { sub: "ann" }, looking_at: "q1" }), WAIT);
  b.set("c-bob", { looking_at: "draft" });
  await settle(a, b);
  await vi.waitFor(() => expect(ann.peers().get(bob.clientID)).toMatchObject({ user: { sub: "bob" } }), WAIT);

  // A third node opens the room late: the others answer its hello with their members' states.
  const c = new Harness({ link: new BusPresenceLink({ bus, nodeId: "c" }) });
  const cat = c.connect("c-cat", principal("cat", "Cat"));
  await settle(a, b, c);
  await settle(a, b, c);
  await vi.waitFor(() => {
    expect(cat.peers().get(ann.clientID)).toMatchObject({ user: { sub: "ann" } });
    expect(cat.peers().get(bob.clientID)).toMatchObject({ user: { sub: "bob" } });
  }, WAIT);

  // Claiming ann's clientID on node B is refused.
  ann.awareness.setLocalState({ looking_at: "q2" });
  const result = b.hub.applyUpdate(ROOM, "c-bob", principal("bob", "Bob"), ann.take().at(-1)!);
  expect(result).toMatchObject({ ok: false, reason: "foreign_client" });

  // ann leaves node A: gone on B and C.
  a.disconnect("c-ann");
  await settle(a, b, c);
  await vi.waitFor(() => expect(bob.peers().has(ann.clientID)).toBe(false), WAIT);
  await vi.waitFor(() => expect(cat.peers().has(ann.clientID)).toBe(false), WAIT);
  c.dispose();
  a.dispose();
  b.dispose();
  expect(bus.topics).toBe(0);
});

it("a state that times out on another node is removed there only, not on its own node", async () => {
  const { a, b } = pair({ outdatedTimeoutMs: 1_000, sweepIntervalMs: 100 });
  const ann = a.connect("c-ann", principal("ann", "Ann"));
  const amy = a.connect("c-amy", principal("amy", "Amy"));
  const bob = b.connect("c-bob", principal("bob", "Bob"));
  await settle(a, b);
  a.set("c-ann", { here: true });
  await settle(a, b);
  await vi.waitFor(() => expect(bob.peers().has(ann.clientID)).toBe(true), WAIT);
  // Node B's clock runs past the timeout without ann's renewal reaching it (node A's does not).
  b.clock.advance(1_200);
  await settle(a, b);
  expect(bob.peers().has(ann.clientID)).toBe(false);
  // On node A ann is still there: amy, beside her, never got a removal.
  expect(amy.peers().get(ann.clientID)).toMatchObject({ here: true });
  expect(a.hub.counts().states).toBe(1);
});

/** A node's view of the shared bus that can fall silent, as a killed or cut-off node does (no goodbye). */
function silenceable(bus: MemoryEventBus): { bus: EventBus; silent: boolean } {
  const state = { silent: false, bus: undefined as unknown as EventBus };
  state.bus = new Proxy(bus, {
    get(target, key) {
      if (key === "publish" && state.silent) return async () => {};
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return state;
}

const FAST = { beatMs: 20, lapseMs: 200 };

it("drops the states of a node that stops heartbeating; one only cut off shows them again with the next renewal", async () => {
  const bus = new MemoryEventBus();
  const c = silenceable(bus);
  const a = new Harness({ link: new BusPresenceLink({ bus, nodeId: "a", liveness: FAST }) });
  const b = new Harness({ link: new BusPresenceLink({ bus: c.bus, nodeId: "b", liveness: FAST }) });
  const ann = a.connect("c-ann", principal("ann", "Ann"));
  const bob = b.connect("c-bob", principal("bob", "Bob"));
  await settle(a, b);
  b.set("c-bob", { looking_at: "draft" });
  await vi.waitFor(async () => {
    await settle(a, b);
    expect(ann.peers().get(bob.clientID)).toMatchObject({ user: { sub: "bob" } });
  }, WAIT);

  // Node B falls silent (its room keeps bob; no removal is ever sent): node A drops bob once B's beats lapse,
  // long before the outdated timeout (30 s; node A's presence clock does not even move here).
  c.silent = true;
  await vi.waitFor(async () => {
    await settle(a, b);
    expect(ann.peers().has(bob.clientID)).toBe(false);
  }, WAIT);
  expect(a.hub.counts().states).toBe(0);

  // B was only cut off: bob's next renewal (a client renews every 15 s) shows him again.
  c.silent = false;
  b.set("c-bob", { looking_at: "draft" });
  await vi.waitFor(async () => {
    await settle(a, b);
    expect(ann.peers().get(bob.clientID)).toMatchObject({ user: { sub: "bob" }, looking_at: "draft" });
  }, WAIT);
});

it("drops a node's states at once when it says goodbye (shuts down)", async () => {
  const bus = new MemoryEventBus();
  // Beats far apart and a long lapse: only the goodbye can remove bob within the wait.
  const slow = { beatMs: 60_000, lapseMs: 600_000 };
  const a = new Harness({ link: new BusPresenceLink({ bus, nodeId: "a", liveness: slow }) });
  const link = new BusPresenceLink({ bus, nodeId: "b", liveness: slow });
  const b = new Harness({ link });
  const ann = a.connect("c-ann", principal("ann", "Ann"));
  const bob = b.connect("c-bob", principal("bob", "Bob"));
  await settle(a, b);
  b.set("c-bob", { looking_at: "draft" });
  await vi.waitFor(async () => {
    await settle(a, b);
    expect(ann.peers().has(bob.clientID)).toBe(true);
  }, WAIT);
  link.close();
  await vi.waitFor(async () => {
    await settle(a);
    expect(ann.peers().has(bob.clientID)).toBe(false);
  }, WAIT);
  a.dispose();
  b.dispose();
  expect(bus.topics).toBe(0);
});
