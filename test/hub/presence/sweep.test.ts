/** The server-side outdated-state sweep, on the injected clock. */
import { describe, expect, it } from "vitest";
import { outdatedTimeout } from "y-protocols/awareness";
import { Harness, principal } from "./helpers.ts";

const alice = principal("alice", "Alice");
const bob = principal("bob", "Bob");

describe("outdated states", () => {
  it("removes a state not renewed for 30 s and tells the others", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.clock.tick();
    expect(outdatedTimeout).toBe(30_000);

    h.clock.advance(outdatedTimeout - 3_000); // the last sweep before the deadline
    expect(b.peers().has(a.clientID)).toBe(true);
    h.clock.advance(3_000);

    expect(b.peers().has(a.clientID)).toBe(false);
    expect(h.hub.counts()).toMatchObject({ states: 0, statesSwept: 1, rooms: 1, connections: 2 });
  });

  it("keeps a state its client renews every 15 s", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });

    for (let i = 0; i < 8; i++) {
      h.clock.advance(outdatedTimeout / 2);
      a.awareness.setLocalState(a.awareness.getLocalState()); // what the client's own interval does
      expect(h.send("A")).toEqual([{ ok: true }]);
    }
    h.clock.tick();

    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-1");
    expect(h.hub.counts().statesSwept).toBe(0);
  });

  it("takes the state back when a swept client renews", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.clock.advance(outdatedTimeout + 3_000);
    expect(b.peers().has(a.clientID)).toBe(false);

    a.awareness.setLocalState(a.awareness.getLocalState());
    expect(h.send("A")).toEqual([{ ok: true }]);
    h.clock.tick();

    expect(b.peers().get(a.clientID)?.["user"]).toEqual({ sub: "alice", name: "Alice" });
  });

  it("honours a custom timeout and sweep interval", () => {
    const h = new Harness({ outdatedTimeoutMs: 1_000, sweepIntervalMs: 100 });
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    h.set("A", { viewing: "interrupt-1" });
    h.clock.advance(900);
    expect(b.peers().has(a.clientID)).toBe(true);
    h.clock.advance(100);
    expect(b.peers().has(a.clientID)).toBe(false);
  });
});
