/** Rooms come and go with their members and leave no timers or listeners behind. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import { PresenceHub, presenceRoomKey } from "../../../hub/presence/index.ts";
import { Harness, ROOM, TestClient, principal } from "./helpers.ts";

const alice = principal("alice", "Alice");
const bob = principal("bob", "Bob");
const QUEUE = presenceRoomKey("acme", "queue", "refunds");

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("PresenceHub rooms", () => {
  it("creates a room on first join and deletes it when the last member leaves", () => {
    const h = new Harness();
    h.connect("A", alice);
    h.connect("B", bob);
    h.hub.join(QUEUE, "A");
    h.set("A", { viewing: "interrupt-1" });
    expect(h.hub.counts()).toMatchObject({ rooms: 2, connections: 2, memberships: 3, states: 1 });
    expect(h.clock.pending).toBe(2); // one sweep for all rooms, one flush

    h.disconnect("A");
    expect(h.hub.counts()).toMatchObject({ rooms: 1, connections: 1, memberships: 1, states: 0 });
    h.clock.tick();
    h.hub.leave(ROOM, "B");

    expect(h.hub.counts()).toMatchObject({ rooms: 0, connections: 0, memberships: 0, states: 0 });
    expect(h.clock.pending).toBe(0);
  });

  it("cancels a pending frame when the room empties in the same tick", () => {
    const h = new Harness();
    h.connect("A", alice);
    h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.disconnect("B");
    h.disconnect("A");

    expect(h.clock.pending).toBe(0);
    h.clock.advance(60_000);
    expect(h.frames).toHaveLength(0);
  });

  it("keys rooms by tenant, kind and id", () => {
    expect(presenceRoomKey("a", "queue", "x")).not.toBe(presenceRoomKey("b", "queue", "x"));
    expect(presenceRoomKey("a", "queue", "x")).not.toBe(presenceRoomKey("a", "thread", "x"));
    expect(presenceRoomKey("a:b", "queue", "c")).not.toBe(presenceRoomKey("a", "queue", "b:c"));
  });

  it("ignores leaving a room one is not in", () => {
    const h = new Harness();
    h.connect("A", alice);
    h.hub.leave(ROOM, "Z");
    h.hub.leave(QUEUE, "A");
    h.hub.leaveAll("Z");
    expect(h.hub.counts()).toMatchObject({ rooms: 1, memberships: 1 });
  });

  it("reports a throwing broadcast and still sends the other frames", () => {
    const errors: string[] = [];
    const h = new Harness({ onError: (_, context) => errors.push(context) });
    const b = h.connect("B", bob);
    const a = h.connect("A", alice);
    const original = a.receive.bind(a);
    a.receive = () => {
      throw new Error("socket gone");
    };
    h.set("A", { viewing: "interrupt-1" });
    h.set("B", { viewing: "interrupt-2" });
    h.clock.tick();
    a.receive = original;

    expect(errors).toEqual([`relaying presence in ${ROOM}`]);
    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-1");
  });
});

describe("cleanup", () => {
  it("removes every listener it adds to an Awareness", () => {
    const on = vi.spyOn(Awareness.prototype, "on");
    const off = vi.spyOn(Awareness.prototype, "off");
    const h = new Harness();
    h.connect("A", alice);
    h.connect("B", bob);
    h.hub.join(QUEUE, "B");
    h.set("A", { viewing: "interrupt-1" });
    h.clock.tick();
    h.disconnect("A");
    h.disconnect("B");
    h.dispose();

    const added = on.mock.calls.map(([name, fn]) => [name, fn]);
    expect(added.length).toBeGreaterThanOrEqual(4); // two clients, two rooms
    expect(off.mock.calls.map(([name, fn]) => [name, fn])).toEqual(expect.arrayContaining(added));
  });

  it("leaves no real timers once the last room is gone (system clock)", async () => {
    // Clients first, on real timers: only the hub's timers are faked and counted.
    const a = new TestClient();
    const b = new TestClient();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate"] });
    const frames: string[][] = [];
    const hub = new PresenceHub({ broadcast: (_, ids) => frames.push([...ids]) });
    try {
      hub.join(ROOM, "A");
      hub.join(ROOM, "B");
      a.awareness.setLocalState({ viewing: "interrupt-1" });
      const [update] = a.take().slice(-1);
      expect(hub.applyUpdate(ROOM, "A", alice, update ?? "")).toEqual({ ok: true });
      // The sweep interval and the flush; the server Awareness's own interval is stopped.
      expect(vi.getTimerCount()).toBe(2);

      await vi.advanceTimersToNextTimerAsync();
      expect(frames).toEqual([["B"]]);
      expect(vi.getTimerCount()).toBe(1);

      hub.leaveAll("A");
      hub.leaveAll("B");
      expect(hub.counts().rooms).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      hub.dispose();
      vi.useRealTimers();
      a.destroy();
      b.destroy();
    }
  });
});
