/**
 * Fan-out on real sockets: many clients see the same ordered events; a
 * client that drops and re-subscribes with `since` misses nothing and sees
 * nothing twice; a client that stops reading is terminated while the others
 * get every event.
 */
import { request } from "node:http";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { END, START, StateGraph, lastValue, type Checkpointer } from "../../../engine/index.ts";
import { demoAssistants, type Assistant } from "../../../hub/index.ts";
import { ALL_CHANNELS, TestSocket, WAIT, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";
import { internalsOf } from "../../../hub/hub.ts";

const BLOB = "x".repeat(8 * 1024);
const FOREVER = Number.MAX_SAFE_INTEGER;
const SLOW = { timeout: 30_000, interval: 20 };

const blobIndexes = (socket: TestSocket): number[] =>
  socket.events.flatMap((e) => (e.method === "custom" ? [(e.params.data.payload as { i: number }).i] : []));

/** Emits `count` large custom events (until cancelled), yielding to I/O between them like a real producer. */
function firehose(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({ count: lastValue<number>(), done: lastValue<boolean>() })
    .addNode("emit", async (state, runtime) => {
      for (let i = 0; i < (state.count ?? 0) && !runtime.signal.aborted; i++) {
        runtime.write({ name: "blob", payload: { i, blob: BLOB } });
        await nextTurn();
      }
      return { done: true };
    })
    .addEdge(START, "emit")
    .addEdge("emit", END)
    .compile({ checkpointer, name: "firehose" });
  return { id: "firehose", description: "test: large custom events", graph };
}

describe("fan-out", () => {
  it("50 clients on one thread all receive the same ordered events", async () => {
    const hub = await testHub({ demoTokenDelayMs: 1 });
    const url = wsUrl(hub, "/threads/t-fifty/stream/events");
    const clients = await Promise.all(Array.from({ length: 50 }, () => TestSocket.open(url)));
    await Promise.all(clients.map((c) => c.subscribe({ channels: ALL_CHANNELS })));
    const [driver] = clients;
    await driver!.request("run.start", { assistant_id: "review", input: { topic: "fan-out" } });
    await Promise.all(clients.map((c) => c.waitForEvent(isRootLifecycle("interrupted"))));

    const reference = driver!.events.map((e) => `${e.seq} ${e.method}`);
    expect(reference.length).toBeGreaterThan(40);
    for (const client of clients) {
      expect(client.events.map((e) => `${e.seq} ${e.method}`)).toEqual(reference);
      client.expectValidFrames();
    }
    expect(hub.stats().connections).toBe(50);
    expect(hub.stats().subscriptions).toBe(50);
    await Promise.all(clients.map((c) => c.close()));
    await vi.waitFor(() => expect(hub.stats().connections).toBe(0), WAIT);
    expect(hub.stats().subscriptions).toBe(0);
    expect(internalsOf(hub).logs.get("t-fifty")?.subscriberCount).toBe(0);
  });

  it("a client that drops mid-run and re-subscribes with since misses nothing and sees nothing twice", async () => {
    const hub = await testHub({ demoTokenDelayMs: 5 });
    const url = wsUrl(hub, "/threads/t-drop/stream/events");
    const witness = await TestSocket.open(url);
    await witness.subscribe({ channels: ALL_CHANNELS });
    const dropper = await TestSocket.open(url);
    await dropper.subscribe({ channels: ALL_CHANNELS });
    await witness.request("run.start", { assistant_id: "review", input: { topic: "drops" } });

    await vi.waitFor(() => expect(dropper.events.filter((e) => e.method === "messages").length).toBeGreaterThan(5), WAIT);
    dropper.ws.terminate();
    const before = dropper.events.slice();
    const lastSeq = before.at(-1)?.seq ?? 0;

    const back = await TestSocket.open(url);
    await back.subscribe({ channels: ALL_CHANNELS, since: lastSeq });
    await back.waitForEvent(isRootLifecycle("interrupted"));
    await witness.waitForEvent(isRootLifecycle("interrupted"));

    const seen = [...before, ...back.events].map((e) => e.seq);
    expect(seen).toEqual(witness.events.map((e) => e.seq));
    expect(new Set(seen).size).toBe(seen.length);
    back.expectValidFrames();
  });

  it("since beyond the buffer gets a resync with a baseline; a plain subscribe gets the baseline as events", async () => {
    const hub = await testHub({ limits: { replayCapacity: 10 } });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-evict/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "evict" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));

    const late = await TestSocket.open(wsUrl(hub, "/threads/t-evict/stream/events"));
    await late.subscribe({ channels: ["lifecycle", "input", "values"], since: 1 });
    const resync = await late.waitForEvent((e) => e.method === "resync");
    expect(resync.method === "resync" && resync.params.data).toMatchObject({
      reason: "evicted",
      head_seq: socket.events.at(-1)?.seq,
      snapshot: { run: { status: "interrupted" }, interrupts: [{ payload: { kind: "review" } }], values: { topic: "evict" } },
    });
    // A fresh subscriber (no since) claims no continuity: it gets the baseline as events.
    const fresh = await TestSocket.open(wsUrl(hub, "/threads/t-evict/stream/events"));
    await fresh.subscribe({ channels: ["lifecycle", "input", "values"] });
    await fresh.waitForEvent(isRootLifecycle("interrupted"));
    expect(fresh.events.map((e) => e.method)).toEqual(["values", "input.requested", "lifecycle"]);
    late.expectValidFrames();
  });

  it("a client that stops reading is terminated; the others receive every event", async () => {
    const hub = await testHub({
      assistants: (checkpointer) => [...demoAssistants()(checkpointer), firehose(checkpointer)],
      limits: { sendSoftBytes: 64 * 1024, sendHardBytes: 1024 * 1024 },
    });
    const url = wsUrl(hub, "/threads/t-slow/stream/events");
    const fast = await Promise.all([TestSocket.open(url), TestSocket.open(url)]);
    const slow = await TestSocket.open(url);
    for (const c of [...fast, slow]) await c.subscribe({ channels: ["custom", "lifecycle"] });
    slow.ws.pause();

    // The firehose runs until the slow reader is cut off (however big the kernel's buffers), then is cancelled.
    await fast[0]!.request("run.start", { assistant_id: "firehose", input: { count: FOREVER } });
    await vi.waitFor(() => expect(hub.stats().slowConsumersTerminated).toBe(1), SLOW);
    await fast[0]!.request("run.cancel", {});
    await Promise.all(fast.map((c) => vi.waitFor(() => expect(c.events.some(isRootLifecycle("failed"))).toBe(true), SLOW)));
    const [a, b] = fast.map(blobIndexes);
    expect(a!.length).toBeGreaterThan(100);
    expect(a).toEqual(Array.from({ length: a!.length }, (_, i) => i));
    expect(b).toEqual(a);
    expect(hub.stats().connections).toBe(2);
    const metrics = await (await fetch(`${hub.url}/metrics`)).text();
    expect(metrics).toContain("switchboard_slow_consumers_terminated_total 1");
    slow.ws.resume();
  }, 60_000);

  it("an SSE reader that stops reading is cut off; a socket client still gets everything", async () => {
    const hub = await testHub({
      assistants: (checkpointer) => [firehose(checkpointer)],
      limits: { sendSoftBytes: 64 * 1024, sendHardBytes: 1024 * 1024 },
    });
    const fast = await TestSocket.open(wsUrl(hub, "/threads/t-slow-sse/stream/events"));
    await fast.subscribe({ channels: ["custom", "lifecycle"] });
    const { hostname, port } = new URL(hub.url);
    let resume = (): void => {};
    const closed = new Promise<void>((resolve) => {
      const req = request({ hostname, port, path: "/threads/t-slow-sse/stream/events", method: "POST", headers: { "content-type": "application/json" } }, (res) => {
        res.pause(); // never reads (a paused socket also cannot see the close)
        resume = () => res.resume();
        res.socket.once("close", () => resolve());
      });
      req.on("error", () => resolve());
      req.end(JSON.stringify({ channels: ["custom"] }));
    });
    await expect.poll(() => hub.stats().sseStreams, WAIT).toBe(1);
    await fast.request("run.start", { assistant_id: "firehose", input: { count: FOREVER } });
    await vi.waitFor(() => expect(hub.stats().slowConsumersTerminated).toBe(1), SLOW);
    expect(hub.stats().sseStreams).toBe(0);
    await fast.request("run.cancel", {});
    resume();
    await closed;
    await vi.waitFor(() => expect(fast.events.some(isRootLifecycle("failed"))).toBe(true), SLOW);
    const got = blobIndexes(fast);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
  }, 60_000);
});
