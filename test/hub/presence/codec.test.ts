/** Strict reading of awareness updates, identity stamping, and base64 on the wire. */
import { describe, expect, it } from "vitest";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import { decodeAwarenessEntries, decodeBase64Update, encodeBase64Update, stampIdentity } from "../../../hub/presence/index.ts";
import { principal, rawUpdate } from "./helpers.ts";

const LIMITS = { maxEntries: 4, maxStateBytes: 256 };

describe("decodeAwarenessEntries", () => {
  it("reads what a real client Awareness encodes", () => {
    const doc = new Y.Doc();
    const awareness = new Awareness(doc);
    awareness.setLocalState({ viewing: "interrupt-1", n: 0, ok: false, note: "" });
    const decoded = decodeAwarenessEntries(encodeAwarenessUpdate(awareness, [doc.clientID]), LIMITS);
    awareness.destroy();
    doc.destroy();

    expect(decoded).toEqual({
      ok: true,
      entries: [{ clientID: doc.clientID, clock: 1, state: { viewing: "interrupt-1", n: 0, ok: false, note: "" } }],
    });
  });

  it("reads a null state as a removal", () => {
    expect(decodeAwarenessEntries(rawUpdate([{ clientID: 7, clock: 3, json: "null" }]), LIMITS)).toEqual({
      ok: true,
      entries: [{ clientID: 7, clock: 3, state: null }],
    });
  });

  it.each<[string, Uint8Array]>([
    ["empty", new Uint8Array()],
    ["truncated count", Uint8Array.of(0x80)],
    ["a missing entry", Uint8Array.of(2, 1, 1, 2, 0x7b, 0x7d)],
    ["a state running past the end", Uint8Array.of(1, 1, 1, 50, 0x7b, 0x7d)],
    ["trailing bytes", Uint8Array.of(...rawUpdate([{ clientID: 1, clock: 1, json: "{}" }]), 0)],
    ["invalid JSON", rawUpdate([{ clientID: 1, clock: 1, json: "{nope" }])],
    ["invalid UTF-8", Uint8Array.of(1, 1, 1, 2, 0xc3, 0x28)],
    ["an array state", rawUpdate([{ clientID: 1, clock: 1, json: "[1]" }])],
    ["a number state", rawUpdate([{ clientID: 1, clock: 1, json: "0" }])],
    ["a string state", rawUpdate([{ clientID: 1, clock: 1, json: '""' }])],
    ["a false state", rawUpdate([{ clientID: 1, clock: 1, json: "false" }])],
  ])("refuses %s", (_, bytes) => {
    expect(decodeAwarenessEntries(bytes, LIMITS)).toMatchObject({ ok: false, reason: "malformed_update", code: "invalid_argument" });
  });

  it("never reads past the view into the rest of its buffer", () => {
    // A state length that fits the underlying buffer but not the view (pooled Buffers).
    const backing = Uint8Array.of(1, 1, 1, 2, 0x7b, 0x7d);
    const view = backing.subarray(0, 4);
    expect(decodeAwarenessEntries(view, LIMITS)).toMatchObject({ ok: false, reason: "malformed_update" });
  });

  it("refuses too many entries and too large states", () => {
    const five = rawUpdate([1, 2, 3, 4, 5].map((clientID) => ({ clientID, clock: 1, json: "{}" })));
    expect(decodeAwarenessEntries(five, LIMITS)).toMatchObject({ ok: false, reason: "too_many_clients" });
    const big = rawUpdate([{ clientID: 1, clock: 1, json: JSON.stringify({ s: "x".repeat(300) }) }]);
    expect(decodeAwarenessEntries(big, LIMITS)).toMatchObject({ ok: false, reason: "state_too_large" });
  });
});

describe("stampIdentity", () => {
  it("replaces user with { sub, name } in every state and leaves removals alone", () => {
    const update = rawUpdate([
      { clientID: 1, clock: 2, json: JSON.stringify({ user: { sub: "root", name: "Root", color: "red" }, viewing: "i-1" }) },
      { clientID: 2, clock: 4, json: "null" },
      { clientID: 3, clock: 1, json: "{}" },
    ]);
    const stamped = decodeAwarenessEntries(stampIdentity(update, principal("alice", "Alice")), LIMITS);
    const user = { sub: "alice", name: "Alice" };
    expect(stamped).toEqual({
      ok: true,
      entries: [
        { clientID: 1, clock: 2, state: { user, viewing: "i-1" } },
        { clientID: 2, clock: 4, state: null },
        { clientID: 3, clock: 1, state: { user } },
      ],
    });
  });
});

describe("base64", () => {
  it("round-trips, including views into larger buffers", () => {
    const backing = Uint8Array.of(9, 1, 2, 3, 9);
    expect(decodeBase64Update(encodeBase64Update(backing.subarray(1, 4)))).toEqual(Uint8Array.of(1, 2, 3));
  });

  it.each(["a", "ab=c", "YWJj!", "YW Jj", "YWJj===", "-_-_"])("refuses %j", (text) => {
    expect(decodeBase64Update(text)).toBeUndefined();
  });
});
