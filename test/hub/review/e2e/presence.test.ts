/**
 * Presence on sockets: `presence.update` on a thread (and a queue) is relayed
 * as `presence` events with the hub-stamped identity; a late joiner gets a
 * snapshot; a connection's states disappear when it disconnects; /metrics
 * counts rooms and states.
 */
import { describe, expect, it, vi } from "vitest";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import { decodeAwarenessEntries, decodeBase64Update, encodeBase64Update } from "../../../../hub/presence/index.ts";
import type { ProtocolEvent } from "../../../../hub/protocol/index.ts";
import { REVIEWER, WAIT, createThread, ok, openAs, reviewHub } from "./helpers.ts";

/** A client-side awareness update claiming to be someone else. */
function spoofedUpdate(state: Record<string, unknown>): { update: string; clientID: number; awareness: Awareness } {
  const doc = new Y.Doc();
  const awareness = new Awareness(doc);
  awareness.setLocalState(state);
  return { update: encodeBase64Update(encodeAwarenessUpdate(awareness, [doc.clientID])), clientID: doc.clientID, awareness };
}

/** Every state carried by the socket's presence events, last write per clientID (null = removed). */
function statesOf(events: ProtocolEvent[]): Map<number, Record<string, unknown> | null> {
  const states = new Map<number, Record<string, unknown> | null>();
  for (const e of events) {
    if (e.method !== "presence") continue;
    const bytes = decodeBase64Update(e.params.data.update);
    const decoded = bytes && decodeAwarenessEntries(bytes, { maxEntries: 100, maxStateBytes: 1 << 16 });
    if (!decoded?.ok) throw new Error("malformed presence frame");
    for (const entry of decoded.entries) states.set(entry.clientID, entry.state as Record<string, unknown> | null);
  }
  return states;
}

describe("presence", () => {
  it("thread presence: identity stamped over spoofed names, snapshot for late joiners, removal on disconnect", async () => {
    const hub = await reviewHub();
    const thread = "p-thread";
    await createThread(hub, thread);
    const ann = await openAs(hub, "ann", REVIEWER);
    const bob = await openAs(hub, "bob", REVIEWER);
    for (const s of [ann, bob]) await s.subscribe({ channels: ["lifecycle"] }, { thread_id: thread });

    // Sending presence before joining a room is refused.
    const stranger = await openAs(hub, "sam", REVIEWER);
    const early = spoofedUpdate({ user: { sub: "x", name: "x" } });
    expect(await stranger.request("presence.update", { update: early.update }, { thread_id: thread })).toMatchObject({ type: "error", error: "invalid_argument" });
    early.awareness.destroy();

    const spoof = spoofedUpdate({ user: { sub: "boss", name: "The Boss" }, looking_at: "interrupt-1" });
    ok(await ann.request("presence.update", { update: spoof.update }, { thread_id: thread }));
    await vi.waitFor(() => expect(statesOf(bob.events).get(spoof.clientID)).toMatchObject({ user: { sub: "ann", name: "ann (token)" }, looking_at: "interrupt-1" }), WAIT);
    expect(bob.events.find((e) => e.method === "presence")).toMatchObject({ thread_id: thread });

    const late = await openAs(hub, "cat", REVIEWER);
    await late.subscribe({ channels: ["lifecycle"] }, { thread_id: thread });
    await vi.waitFor(() => expect(statesOf(late.events).get(spoof.clientID)).toMatchObject({ user: { sub: "ann" } }), WAIT);

    const metrics = await (await fetch(`${hub.url}/metrics`)).text();
    expect(metrics).toContain("switchboard_presence_states 1");
    expect(metrics).toContain("switchboard_presence_rooms 1");

    await ann.close();
    await vi.waitFor(() => expect(statesOf(bob.events).get(spoof.clientID)).toBeNull(), WAIT);
    await vi.waitFor(() => expect(statesOf(late.events).get(spoof.clientID)).toBeNull(), WAIT);
    expect(hub.stats().presence.states).toBe(0);
    spoof.awareness.destroy();
    for (const s of [bob, late]) s.expectValidFrames();
  });

  it("queue presence: presence.update { queue } relays to the queue's subscribers", async () => {
    const hub = await reviewHub();
    const ann = await openAs(hub, "ann", REVIEWER);
    const bob = await openAs(hub, "bob", REVIEWER);
    for (const s of [ann, bob]) ok(await s.request("queue.subscribe", { queue: "legal" }));
    const spoof = spoofedUpdate({ user: { sub: "root", name: "root" }, viewing: "queue" });
    ok(await ann.request("presence.update", { update: spoof.update, queue: "legal" }));
    await vi.waitFor(() => expect(statesOf(bob.events).get(spoof.clientID)).toMatchObject({ user: { sub: "ann" }, viewing: "queue" }), WAIT);
    expect(bob.events.find((e) => e.method === "presence")?.params.data).toMatchObject({ queue: "legal" });
    expect(await ann.request("presence.update", { update: spoof.update, queue: "finance" })).toMatchObject({ type: "error", error: "invalid_argument" });
    await ann.close();
    await vi.waitFor(() => expect(statesOf(bob.events).get(spoof.clientID)).toBeNull(), WAIT);
    spoof.awareness.destroy();
  });
});
