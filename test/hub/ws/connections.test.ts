/**
 * Connection lifetime: runs outlive their client unless asked otherwise, a
 * silent peer is dropped by the ping/pong heartbeat, and closing a hub
 * leaves no connection, subscription or stream behind.
 */
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ALL_CHANNELS, TestSocket, WAIT, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";
import { internalsOf } from "../../../hub/hub.ts";

describe("connections", () => {
  it("a run continues when the client that started it disconnects (on_disconnect: continue)", async () => {
    const hub = await testHub({ demoTokenDelayMs: 5 });
    const url = wsUrl(hub, "/threads/t-leave/stream/events");
    const watcher = await TestSocket.open(url);
    await watcher.subscribe({ channels: ["lifecycle", "messages"] });
    const starter = await TestSocket.open(url);
    await starter.request("run.start", { assistant_id: "review", input: { topic: "leaving" } });
    await watcher.waitForEvent((e) => e.method === "messages");
    await starter.close();
    await watcher.waitForEvent(isRootLifecycle("interrupted"));
  });

  it('on_disconnect: "cancel" cancels the run when its socket closes', async () => {
    const hub = await testHub({ demoTokenDelayMs: 20 });
    const url = wsUrl(hub, "/threads/t-cancel/stream/events");
    const watcher = await TestSocket.open(url);
    await watcher.subscribe({ channels: ["lifecycle", "messages"] });
    const starter = await TestSocket.open(url);
    const started = await starter.request("run.start", { assistant_id: "review", input: { topic: "bye" }, on_disconnect: "cancel" });
    await watcher.waitForEvent((e) => e.method === "messages");
    await starter.close();
    const failed = await watcher.waitForEvent(isRootLifecycle("failed"));
    expect(failed.params.data).toMatchObject({ cancelled: true });
    const runId = started.type === "success" ? String(started.result["run_id"]) : "";
    await expect.poll(async () => (await internalsOf(hub).store.getRun(runId))?.status, WAIT).toBe("cancelled");
  });

  it("drops a peer that stops answering pings; others stay", async () => {
    const hub = await testHub({ limits: { heartbeatMs: 50 } });
    const url = wsUrl(hub, "/threads/t-ping/stream/events");
    const healthy = await TestSocket.open(url);
    const silent = new WebSocket(url, { autoPong: false });
    const closed = new Promise<number>((resolve) => silent.once("close", (code) => resolve(code)));
    await new Promise((resolve) => silent.once("open", resolve));
    expect(await closed).toBe(1006); // terminated, no close frame
    await expect.poll(() => hub.stats().connections, WAIT).toBe(1);
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    expect((await healthy.request("state.get", { namespace: [] })).type).toBe("success");
  });

  it("closes a socket that subscribes to nothing and sends nothing (4408); subscribers stay", async () => {
    const hub = await testHub({ limits: { heartbeatMs: 50, idleTimeoutMs: 100 } });
    const url = wsUrl(hub, "/threads/t-idle/stream/events");
    const watching = await TestSocket.open(url);
    await watching.subscribe({ channels: ["lifecycle"] });
    const idle = await TestSocket.open(url);
    await expect.poll(() => idle.closeCode, WAIT).toBe(4408);
    expect(watching.ws.readyState).toBe(WebSocket.OPEN);
  });

  it("closing the hub closes sockets (1001) and SSE streams, leaving nothing behind", async () => {
    const hub = await testHub({ demoTokenDelayMs: 5 });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-close/stream/events"));
    await socket.subscribe({ channels: ["lifecycle"] });
    const sse = await fetch(`${hub.url}/threads/t-close/stream/events`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ channels: ["lifecycle"] }) });
    const reader = sse.body!.getReader();
    await reader.read();
    await socket.request("run.start", { assistant_id: "review", input: { topic: "closing" } });
    await hub.close();
    await expect.poll(() => socket.closeCode, WAIT).toBe(1001);
    for (;;) if ((await reader.read()).done) break;
    const metrics = hub.stats();
    expect({ connections: metrics.connections, subscriptions: metrics.subscriptions, sse: metrics.sseStreams }).toEqual({ connections: 0, subscriptions: 0, sse: 0 });
    expect(internalsOf(hub).logs.get("t-close")?.subscriberCount).toBe(0);
  });
});

describe("several subscriptions on one connection", () => {
  it("come and go independently, on one thread and across threads (/ws)", async () => {
    const hub = await testHub();
    const mux = await TestSocket.open(wsUrl(hub, "/ws"));
    const onA = { thread_id: "m-a" };
    const onB = { thread_id: "m-b" };
    const lifecycleA = await mux.subscribe({ channels: ["lifecycle"] }, onA);
    const messagesA = await mux.subscribe({ channels: ["messages"] }, onA);
    const lifecycleB = await mux.subscribe({ channels: ["lifecycle"] }, onB);
    expect(hub.stats().subscriptions).toBe(3);

    // Drop the first subscription of thread A: the second one keeps delivering.
    expect(await mux.request("subscription.unsubscribe", { subscription_id: lifecycleA }, onA)).toMatchObject({ type: "success" });
    const witness = await TestSocket.open(wsUrl(hub, "/threads/m-a/stream/events"));
    await witness.subscribe({ channels: ["lifecycle"] });
    await mux.request("run.start", { assistant_id: "review", input: { topic: "a" } }, onA);
    await witness.waitForEvent(isRootLifecycle("interrupted"));
    await mux.waitForEvent((e) => e.method === "messages" && e.thread_id === "m-a");
    expect(mux.events.filter((e) => e.thread_id === "m-a" && e.method === "lifecycle")).toEqual([]);

    // Thread B's subscription was untouched.
    await mux.request("run.start", { assistant_id: "review", input: { topic: "b" } }, onB);
    await mux.waitForEvent((e) => e.thread_id === "m-b" && isRootLifecycle("interrupted")(e));
    expect(mux.events.some((e) => e.thread_id === "m-b" && e.method === "messages")).toBe(false);

    // Unsubscribing an id twice, or on the wrong thread, is refused and changes nothing.
    expect(await mux.request("subscription.unsubscribe", { subscription_id: lifecycleA }, onA)).toMatchObject({ type: "error" });
    expect(await mux.request("subscription.unsubscribe", { subscription_id: messagesA }, onB)).toMatchObject({ type: "error" });
    expect(await mux.request("subscription.unsubscribe", { subscription_id: lifecycleB }, onB)).toMatchObject({ type: "success" });
    expect(internalsOf(hub).logs.get("m-b")?.subscriberCount).toBe(0);
    expect(internalsOf(hub).logs.get("m-a")?.subscriberCount).toBe(2); // mux (messages) and the witness
    expect(await mux.request("subscription.unsubscribe", { subscription_id: messagesA }, onA)).toMatchObject({ type: "success" });
    expect(internalsOf(hub).logs.get("m-a")?.subscriberCount).toBe(1);
    expect(hub.stats().subscriptions).toBe(1);
    mux.expectValidFrames();
  });
});

describe("subscription.reconnect", () => {
  it("restores the subscriptions of a dropped connection and replays exactly what they missed", async () => {
    const hub = await testHub({ demoTokenDelayMs: 5 });
    const url = wsUrl(hub, "/threads/t-reconnect/stream/events");
    const witness = await TestSocket.open(url);
    await witness.subscribe({ channels: ["lifecycle", "input", "messages"] });
    const first = await TestSocket.open(url);
    const subA = await first.subscribe({ channels: ["lifecycle", "input"] });
    const subB = await first.subscribe({ channels: ["messages"] });
    const start = await first.request("run.start", { assistant_id: "review", input: { topic: "reconnect" } });
    await first.waitForEvent((e) => e.method === "messages");
    first.ws.terminate();
    const before = first.events.slice();
    const last = before.at(-1)!;

    const second = await TestSocket.open(url);
    const runId = start.type === "success" ? String(start.result["run_id"]) : "";
    const reply = await second.request("subscription.reconnect", { run_id: runId, last_event_id: last.event_id, subscriptions: [subA, subB] });
    expect(reply).toMatchObject({ type: "success", result: { restored: true, restored_subscriptions: [subA, subB] } });
    await second.waitForEvent(isRootLifecycle("interrupted"));
    await witness.waitForEvent(isRootLifecycle("interrupted"));
    expect([...before, ...second.events].map((e) => e.seq)).toEqual(witness.events.map((e) => e.seq));
    // The restored ids are live on the new connection.
    expect(await second.request("subscription.unsubscribe", { subscription_id: subB })).toMatchObject({ type: "success" });

    const unknown = await second.request("subscription.reconnect", { run_id: runId, subscriptions: ["nope"] });
    expect(unknown).toMatchObject({ type: "success", result: { restored: false } });
    second.expectValidFrames();
  });
});

describe("endpoints and hooks", () => {
  it("serves the thread socket at /threads/:id/stream too", async () => {
    const hub = await testHub();
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-alias/stream"));
    await socket.subscribe({ channels: ["lifecycle"] });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "alias" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
  });

  it("the event transformer redacts or drops events before they are numbered and sent", async () => {
    const hub = await testHub({
      transformEvent: (event) => {
        if (event.method === "messages") return null;
        if (event.method === "values") return { ...event, params: { ...event.params, data: { redacted: true } } };
        return event;
      },
    });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-redact/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "secret" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    expect(socket.events.some((e) => e.method === "messages")).toBe(false);
    expect(socket.events.filter((e) => e.method === "values").every((e) => JSON.stringify(e.params.data) === '{"redacted":true}')).toBe(true);
    const seqs = socket.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1)); // no holes where events were dropped
  });
});

