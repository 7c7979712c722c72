/**
 * Presence: the client's awareness codec agrees with y-protocols in both
 * directions, and the reducer follows awareness' clock rules.
 */
import { describe, expect, it } from "vitest";
import * as awarenessProtocol from "y-protocols/awareness";
import * as Y from "yjs";
import { applyAwareness, decodeAwarenessUpdate, emptyPresence, encodeAwarenessUpdate, presenceList, reducePresence } from "../../client/index.ts";

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));

describe("awareness codec", () => {
  it("decodes what y-protocols encodes", () => {
    const doc = new Y.Doc();
    const awareness = new awarenessProtocol.Awareness(doc);
    awareness.setLocalState({ user: { name: "Ada" }, looking_at: "int_5f2c" });
    const update = toBase64(awarenessProtocol.encodeAwarenessUpdate(awareness, [doc.clientID]));
    const [entry] = decodeAwarenessUpdate(update);
    expect(entry).toEqual({ clientId: doc.clientID, clock: expect.any(Number), state: { user: { name: "Ada" }, looking_at: "int_5f2c" } });
    awareness.destroy();
    doc.destroy();
  });

  it("encodes what y-protocols applies", () => {
    const doc = new Y.Doc();
    const awareness = new awarenessProtocol.Awareness(doc);
    const update = encodeAwarenessUpdate([{ clientId: 4_000_000_000, clock: 3, state: { user: { name: "Grace" } } }]);
    awarenessProtocol.applyAwarenessUpdate(awareness, fromBase64(update), "test");
    expect(awareness.getStates().get(4_000_000_000)).toEqual({ user: { name: "Grace" } });
    awareness.destroy();
    doc.destroy();
  });
});

describe("presence reducer", () => {
  it("lists present clients; a higher clock wins; null removes and is not undone by an older update", () => {
    let state = reducePresence(emptyPresence(), encodeAwarenessUpdate([{ clientId: 1, clock: 1, state: { name: "A" } }, { clientId: 2, clock: 1, state: { name: "B" } }]));
    state = applyAwareness(state, [{ clientId: 1, clock: 0, state: { name: "stale" } }]);
    expect(presenceList(state)).toEqual([{ clientId: 1, state: { name: "A" } }, { clientId: 2, state: { name: "B" } }]);
    state = applyAwareness(state, [{ clientId: 2, clock: 2, state: null }]);
    state = applyAwareness(state, [{ clientId: 2, clock: 1, state: { name: "B again" } }]);
    expect(presenceList(state)).toEqual([{ clientId: 1, state: { name: "A" } }]);
  });

  it("ignores a malformed update", () => {
    const state = emptyPresence();
    expect(reducePresence(state, "////")).toBe(state);
  });
});
