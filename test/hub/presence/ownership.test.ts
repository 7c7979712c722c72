/** A connection speaks only for its own clientIDs, within limits, with well-formed updates. */
import { describe, expect, it } from "vitest";
import { encodeBase64Update } from "../../../hub/presence/index.ts";
import { Harness, ROOM, TestClient, principal, rawUpdate } from "./helpers.ts";

const alice = principal("alice", "Alice");
const bob = principal("bob", "Bob");
const mallory = principal("mallory", "Mallory");

function withMallory(): { h: Harness; a: TestClient; b: TestClient } {
  const h = new Harness();
  const a = h.connect("A", alice);
  const b = h.connect("B", bob);
  h.set("A", { viewing: "interrupt-1" });
  h.clock.tick();
  return { h, a, b };
}

describe("clientID ownership", () => {
  it("refuses an update for a clientID another connection owns", () => {
    const { h, a, b } = withMallory();
    // Mallory's tab forges Alice's clientID, with a newer clock.
    h.connect("M", mallory, ROOM, new TestClient(a.clientID));
    const forged = h.client("M");
    forged.awareness.setLocalState({ viewing: "interrupt-9" });
    forged.awareness.setLocalState({ viewing: "interrupt-9" });

    const results = h.send("M");
    h.clock.tick();

    expect(results).toHaveLength(2);
    for (const result of results) expect(result).toMatchObject({ ok: false, code: "permission_denied", reason: "foreign_client" });
    expect(b.peers().get(a.clientID)).toEqual({ viewing: "interrupt-1", user: { sub: "alice", name: "Alice" } });
    expect(h.hub.counts()).toMatchObject({ updatesRejected: 2, states: 1 });
  });

  it("refuses a forged removal of another connection's state", () => {
    const { h, a, b } = withMallory();
    h.connect("M", mallory, ROOM, new TestClient(a.clientID));
    const forged = h.client("M");
    for (let i = 0; i < 5; i++) forged.awareness.setLocalState(null);

    expect(h.send("M").every((r) => !r.ok && r.reason === "foreign_client")).toBe(true);
    h.clock.tick();
    expect(b.peers().has(a.clientID)).toBe(true);
  });

  it("refuses the whole update when one entry is foreign", () => {
    const { h, a, b } = withMallory();
    const m = h.connect("M", mallory);
    // One frame carrying Mallory's own state and a forged one for Alice's clientID.
    const bytes = rawUpdate([
      { clientID: m.clientID, clock: 5, json: JSON.stringify({ viewing: "interrupt-3" }) },
      { clientID: a.clientID, clock: 99, json: JSON.stringify({ viewing: "interrupt-9" }) },
    ]);

    const result = h.hub.applyUpdate(ROOM, "M", mallory, encodeBase64Update(bytes));
    h.clock.tick();

    expect(result).toMatchObject({ ok: false, reason: "foreign_client" });
    expect(b.peers().has(m.clientID)).toBe(false);
    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-1");
  });

  it("frees a clientID when its connection leaves", () => {
    const { h, a, b } = withMallory();
    h.disconnect("A");
    h.clock.tick();

    h.connect("A2", alice, ROOM, new TestClient(a.clientID));
    // The hub forgot the old clock with the connection, so clock 1 is taken...
    expect(h.set("A2", { viewing: "interrupt-2" })).toEqual([{ ok: true }]);
    expect(h.hub.counts().states).toBe(1);
    // ...but B saw the removal at clock 1 and needs a newer one.
    expect(h.set("A2", { viewing: "interrupt-2" })).toEqual([{ ok: true }]);
    h.clock.tick();
    expect(b.peers().get(a.clientID)?.["viewing"]).toBe("interrupt-2");
  });

  it("limits how many clientIDs one connection may own", () => {
    const h = new Harness({ maxClientsPerConnection: 2 });
    h.connect("A", alice);
    const tabs = [new TestClient(), new TestClient(), new TestClient()];
    const results = tabs.map((tab) => {
      tab.awareness.setLocalState({ viewing: "x" });
      const [update] = tab.take().slice(-1);
      tab.destroy();
      return h.hub.applyUpdate(ROOM, "A", alice, update ?? "");
    });

    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(results[2]).toMatchObject({ code: "payload_too_large", reason: "too_many_clients" });
    expect(h.hub.counts().states).toBe(2);
  });
});

describe("refused updates", () => {
  it("refuses presence from a connection that has not joined the room", () => {
    const h = new Harness();
    h.connect("A", alice);
    const stranger = new TestClient();
    stranger.awareness.setLocalState({ viewing: "x" });
    const [update] = stranger.take();
    stranger.destroy();

    expect(h.hub.applyUpdate(ROOM, "Z", mallory, update ?? "")).toMatchObject({ ok: false, reason: "not_joined" });
    expect(h.hub.applyUpdate("elsewhere", "A", alice, update ?? "")).toMatchObject({ ok: false, reason: "not_joined" });
    expect(h.hub.counts().rooms).toBe(1);
  });

  it.each([
    ["not base64", "not base64!"],
    ["empty", ""],
    ["truncated", encodeBase64Update(Uint8Array.of(1, 5, 1))],
  ])("answers a malformed update (%s) with invalid_argument and changes nothing", (_, update) => {
    const h = new Harness();
    const b = h.connect("B", bob);
    h.connect("A", alice);

    expect(h.hub.applyUpdate(ROOM, "A", alice, update)).toMatchObject({ ok: false, code: "invalid_argument", reason: "malformed_update" });
    h.clock.tick();
    expect(h.frames).toHaveLength(0);
    expect(b.peers().size).toBe(0);
  });

  it("refuses a state larger than maxStateBytes", () => {
    const h = new Harness({ maxStateBytes: 64 });
    const a = h.connect("A", alice);
    a.awareness.setLocalState({ note: "x".repeat(100) });

    expect(h.send("A")).toEqual([expect.objectContaining({ ok: false, code: "payload_too_large", reason: "state_too_large" })]);
  });
});
