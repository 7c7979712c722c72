/** Identity stamping, mutual visibility, per-tick batching and disconnects, with real y-protocols clients. */
import { describe, expect, it } from "vitest";
import { Harness, ROOM, clientIDsOf, principal } from "./helpers.ts";

const alice = principal("alice", "Alice");
const bob = principal("bob", "Bob");
const carol = principal("carol", "Carol");

describe("identity", () => {
  it("overwrites a spoofed user with the authenticated principal", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);

    const results = h.set("A", { user: { sub: "bob", name: "Bob", roles: ["admin"] }, viewing: "interrupt-1" });
    expect(results).toEqual([{ ok: true }]);
    h.clock.tick();

    expect(b.peers().get(a.clientID)).toEqual({ user: { sub: "alice", name: "Alice" }, viewing: "interrupt-1" });
  });

  it("adds the user to a state that has none, and keeps it on every later update", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);

    h.set("A", { viewing: "interrupt-1" });
    h.clock.tick();
    a.awareness.setLocalStateField("user", { sub: "mallory", name: "Mallory" });
    h.send("A");
    h.clock.tick();

    expect(b.peers().get(a.clientID)?.["user"]).toEqual({ sub: "alice", name: "Alice" });
  });
});

describe("relay", () => {
  it("lets two clients see each other's states", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);

    h.set("A", { viewing: "interrupt-1" });
    h.set("B", { viewing: "interrupt-2" });
    expect(h.frames).toHaveLength(0); // nothing before the end of the tick
    h.clock.tick();

    expect(a.peers()).toEqual(new Map([[b.clientID, { viewing: "interrupt-2", user: { sub: "bob", name: "Bob" } }]]));
    expect(b.peers()).toEqual(new Map([[a.clientID, { viewing: "interrupt-1", user: { sub: "alice", name: "Alice" } }]]));
    // Nobody is sent its own state back.
    for (const frame of h.frames) {
      for (const id of frame.connectionIds) expect(clientIDsOf(frame.update)).not.toContain(h.client(id).clientID);
    }
    expect(h.framesTo("A")).toHaveLength(1);
    expect(h.framesTo("B")).toHaveLength(1);
  });

  it("gives a late joiner every current state in its snapshot", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.set("B", { viewing: "interrupt-2" });
    h.clock.tick();

    const c = h.connect("C", carol);
    expect(c.received).toHaveLength(1);
    expect([...c.peers().keys()].sort()).toEqual([a.clientID, b.clientID].sort());
    expect(c.peers().get(b.clientID)?.["user"]).toEqual({ sub: "bob", name: "Bob" });
  });

  it("has no snapshot for a room without states", () => {
    const h = new Harness();
    h.connect("A", alice);
    expect(h.hub.join(ROOM, "B")).toBeUndefined();
  });

  it("merges ten updates of one tick into one frame", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    const c = h.connect("C", carol);

    for (let i = 0; i < 10; i++) {
      a.awareness.setLocalState({ viewing: `interrupt-${i}` });
      expect(h.send("A")).toEqual([{ ok: true }]);
    }
    expect(h.clock.pending).toBe(2); // the sweep interval and one flush
    h.clock.tick();

    expect(h.frames).toHaveLength(1);
    expect([...(h.frames[0]?.connectionIds ?? [])].sort()).toEqual(["B", "C"]);
    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-9");
    expect(c.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-9");
    expect(h.hub.counts()).toMatchObject({ updatesApplied: 10, framesRelayed: 1, deliveries: 2 });
  });

  it("sends each member at most one frame per tick however many clients changed", () => {
    const h = new Harness();
    const watcher = h.connect("W", carol);
    const ids = Array.from({ length: 10 }, (_, i) => `C${i}`);
    for (const id of ids) h.connect(id, principal(id, id));

    for (const id of ids) h.set(id, { viewing: `interrupt-${id}` });
    h.clock.tick();

    expect(h.framesTo("W")).toHaveLength(1);
    expect(watcher.peers().size).toBe(10);
    for (const id of ids) {
      expect(h.framesTo(id)).toHaveLength(1);
      expect(h.client(id).peers().size).toBe(9);
    }
  });

  it("batches over an interval when flushIntervalMs is set", () => {
    const h = new Harness({ flushIntervalMs: 100 });
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);

    h.set("A", { viewing: "interrupt-1" });
    h.clock.advance(50);
    a.awareness.setLocalStateField("viewing", "interrupt-2");
    h.send("A");
    h.clock.advance(49);
    expect(h.frames).toHaveLength(0);
    h.clock.advance(1);

    expect(h.frames).toHaveLength(1);
    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-2");
  });

  it("relays renewals (same state, newer clock) so clients keep the state alive", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.clock.tick();
    const before = b.awareness.meta.get(a.clientID)?.clock;

    a.awareness.setLocalState(a.awareness.getLocalState());
    h.send("A");
    h.clock.tick();

    expect(h.framesTo("B")).toHaveLength(2);
    expect(b.awareness.meta.get(a.clientID)?.clock).toBe((before ?? 0) + 1);
  });
});

describe("disconnect", () => {
  it("removes the connection's states for everyone else", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    const c = h.connect("C", carol);
    h.set("A", { viewing: "interrupt-1" });
    h.set("B", { viewing: "interrupt-2" });
    h.clock.tick();
    expect(c.peers().size).toBe(2);

    h.disconnect("A");
    h.clock.tick();

    expect(b.peers().has(a.clientID)).toBe(false);
    expect(c.peers().has(a.clientID)).toBe(false);
    expect(c.peers().has(b.clientID)).toBe(true);
    expect(h.hub.counts()).toMatchObject({ rooms: 1, connections: 2, states: 1 });
    expect(h.hub.join(ROOM, "D")).toBeDefined(); // B's state only
  });

  it("relays a client's own null state (tab closed politely)", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.clock.tick();

    h.set("A", null);
    h.clock.tick();

    expect(b.peers().has(a.clientID)).toBe(false);
  });

  it("accepts the same client back after a reconnect once it renews its clock", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.clock.tick();
    h.disconnect("A");
    h.clock.tick();
    expect(b.peers().has(a.clientID)).toBe(false);

    // Same tab, new socket: a client renews its state when it reconnects.
    h.connect("A2", alice, ROOM, a);
    a.awareness.setLocalState(a.awareness.getLocalState());
    expect(h.send("A2")).toEqual([{ ok: true }]);
    h.clock.tick();

    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-1");
  });
});
