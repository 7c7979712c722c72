/**
 * The one awareness codec (hub/protocol/awareness.ts): what y-protocols
 * writes it reads, what it writes y-protocols reads, and the SDK's
 * decode/encode are it (so the SDK refuses what the hub refuses).
 */
import { describe, expect, it } from "vitest";
import { Doc } from "yjs";
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate as yEncode } from "y-protocols/awareness";
import { awarenessFromBase64, awarenessToBase64, decodeAwareness, encodeAwareness } from "../../../hub/protocol/index.ts";
import { decodeAwarenessUpdate, encodeAwarenessUpdate } from "../../../client/index.ts";

describe("awareness codec", () => {
  it("reads y-protocols' updates and writes updates y-protocols applies", () => {
    const doc = new Doc();
    const awareness = new Awareness(doc);
    awareness.setLocalState({ cursor: { line: 3 }, text: "ünï✓" });
    const decoded = decodeAwareness(yEncode(awareness, [doc.clientID]));
    expect(decoded).toEqual({ ok: true, entries: [{ clientID: doc.clientID, clock: 1, state: { cursor: { line: 3 }, text: "ünï✓" } }] });

    const other = new Awareness(new Doc());
    applyAwarenessUpdate(other, encodeAwareness([{ clientID: 42, clock: 2, state: { name: "x" } }]), "test");
    expect(other.getStates().get(42)).toEqual({ name: "x" });
    awareness.destroy();
    other.destroy();
  });

  it("the SDK's encode and decode are the same codec, base64 on the wire", () => {
    const entries = [{ clientId: 7, clock: 3, state: { a: 1 } }, { clientId: 8, clock: 1, state: null }];
    const wire = encodeAwarenessUpdate(entries);
    expect(wire).toBe(awarenessToBase64(encodeAwareness([{ clientID: 7, clock: 3, state: { a: 1 } }, { clientID: 8, clock: 1, state: null }])));
    expect(decodeAwarenessUpdate(wire)).toEqual(entries);
  });

  it("the SDK refuses what the hub refuses: trailing bytes, a non-object state, not base64", () => {
    const good = encodeAwareness([{ clientID: 7, clock: 1, state: { a: 1 } }]);
    const trailing = awarenessToBase64(new Uint8Array([...good, 0]));
    expect(decodeAwareness(awarenessFromBase64(trailing)!)).toMatchObject({ ok: false, reason: "malformed_update" });
    expect(() => decodeAwarenessUpdate(trailing)).toThrow(/trailing bytes/);
    const array = awarenessToBase64(encodeAwareness([{ clientID: 7, clock: 1, state: [1] as unknown as Record<string, unknown> }]));
    expect(() => decodeAwarenessUpdate(array)).toThrow(/JSON object or null/);
    expect(() => decodeAwarenessUpdate("not base64!")).toThrow(/base64/);
    expect(awarenessFromBase64("AAA")).toBeUndefined();
  });

  it("checks the limits before reading a state", () => {
    const two = encodeAwareness([{ clientID: 1, clock: 1, state: {} }, { clientID: 2, clock: 1, state: {} }]);
    expect(decodeAwareness(two, { maxEntries: 1, maxStateBytes: 100 })).toMatchObject({ ok: false, reason: "too_many_clients" });
    const big = encodeAwareness([{ clientID: 1, clock: 1, state: { text: "x".repeat(100) } }]);
    expect(decodeAwareness(big, { maxEntries: 1, maxStateBytes: 100 })).toMatchObject({ ok: false, reason: "state_too_large" });
  });
});
