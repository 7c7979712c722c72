/**
 * Bad input of every kind gets a typed error and the connection lives on;
 * only a frame beyond the WebSocket payload cap closes it (1009). Also the
 * multiplexed `/ws` socket and `POST /commands`.
 */
import { describe, expect, it } from "vitest";
import { TestSocket, WAIT, isRootLifecycle, testHub, wsUrl } from "./helpers.ts";

describe("bad frames", () => {
  it("each gets a typed error reply and the socket keeps working", async () => {
    const hub = await testHub({ limits: { maxFrameBytes: 1024, maxPayloadBytes: 8192, commandsPerSecond: 0.001, commandBurst: 13 } });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-bad/stream/events"));
    const cases: Array<[string | Buffer, boolean, Record<string, unknown>]> = [
      ["{not json", false, { id: null, error: "invalid_argument" }],
      ["[1,2,3]", false, { id: null, error: "invalid_argument" }],
      [JSON.stringify({ method: "state.get", params: { namespace: [] } }), false, { id: null, error: "invalid_argument" }],
      [JSON.stringify({ id: 1, method: "no.such", params: {} }), false, { id: 1, error: "unknown_command" }],
      [JSON.stringify({ id: 2, method: "subscription.subscribe", params: { channels: ["nope"] } }), false, { id: 2, error: "invalid_argument", path: ["params", "channels", 0] }],
      [JSON.stringify({ id: 3, method: "state.get", params: { namespace: [] }, pad: "x".repeat(2000) }), false, { id: null, error: "payload_too_large" }],
      [Buffer.from(JSON.stringify({ id: 4, method: "state.get", params: { namespace: [] } })), true, { id: null, error: "invalid_argument" }],
      [JSON.stringify({ id: 5, method: "subscription.unsubscribe", params: { subscription_id: "nope" } }), false, { id: 5, error: "no_such_subscription" }],
      [JSON.stringify({ id: 6, method: "state.get", params: { namespace: [] }, thread_id: "other" }), false, { id: 6, error: "invalid_argument" }],
      [JSON.stringify({ id: 7, method: "input.inject", params: { namespace: [], message: { role: "user", content: "hi" } } }), false, { id: 7, error: "not_supported" }],
      [JSON.stringify({ id: 8, method: "run.start", params: { assistant_id: "nobody", input: {} } }), false, { id: 8, error: "not_found" }],
      [JSON.stringify({ id: 9, method: "input.respond", params: { namespace: [], interrupt_id: "x", response: 1 } }), false, { id: 9, error: "nothing_pending" }],
    ];
    for (const [frame, binary, expected] of cases) {
      const before = socket.responses.length;
      socket.sendRaw(frame, binary);
      const reply = await expect.poll(() => socket.responses[before], WAIT).toBeDefined().then(() => socket.responses[before]);
      expect(reply, String(frame).slice(0, 80)).toMatchObject({ type: "error", ...expected });
    }
    // Still alive; every frame spends a token: the burst (13) is the twelve cases and this one.
    const works = await socket.request("state.get", { namespace: [] });
    expect(works.type).toBe("success");
    const limited = await socket.request("state.get", { namespace: [] });
    expect(limited).toMatchObject({ type: "error", error: "rate_limited", details: { retry_after_ms: expect.any(Number) } });
    // Frame-level refusals: the first seven cases and the rate limit.
    expect(hub.services.metrics.framesRejected).toBe(8);
    socket.expectValidFrames();

    // Past the WebSocket payload cap the protocol is violated: 1009.
    socket.sendRaw("x".repeat(10_000));
    await expect.poll(() => socket.closeCode, WAIT).toBe(1009);
  });

  it("POST /commands answers every error as 200 JSON", async () => {
    const hub = await testHub();
    const post = async (body: string) => {
      const res = await fetch(`${hub.url}/threads/t-http/commands`, { method: "POST", headers: { "content-type": "application/json" }, body });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    expect(await post("{")).toMatchObject({ status: 200, json: { type: "error", id: null, error: "invalid_argument" } });
    expect(await post(JSON.stringify({ id: 1, method: "zzz", params: {} }))).toMatchObject({ status: 200, json: { id: 1, error: "unknown_command" } });
    expect(await post(JSON.stringify({ id: 2, method: "subscription.subscribe", params: { channels: ["values"] } }))).toMatchObject({
      status: 200,
      json: { id: 2, error: "not_supported" },
    });
    expect(await post(JSON.stringify({ id: 3, method: "run.start", params: { assistant_id: "review", input: { topic: "http" } } }))).toMatchObject({
      status: 200,
      json: { type: "success", id: 3, result: { run_id: expect.any(String) } },
    });
  });
});

describe("multiplexed /ws", () => {
  it("carries many threads on one socket, tagged with thread_id, plus run.cancel", async () => {
    const hub = await testHub({ demoTokenDelayMs: 10 });
    const socket = await TestSocket.open(wsUrl(hub, "/ws"));
    const noThread = await socket.request("state.get", { namespace: [] });
    expect(noThread).toMatchObject({ type: "error", error: "invalid_argument" });
    // Queue commands need no thread_id.
    expect(await socket.request("queue.subscribe", { queue: "legal" })).toMatchObject({ type: "success", result: { subscription_id: expect.any(String), items: 0 } });

    for (const thread of ["mux-a", "mux-b"]) {
      const sub = await socket.request("subscription.subscribe", { channels: ["lifecycle", "input"] }, { thread_id: thread });
      expect(sub).toMatchObject({ type: "success", thread_id: thread });
    }
    await socket.request("run.start", { assistant_id: "parallel-review", input: {} }, { thread_id: "mux-a" });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "mux" } }, { thread_id: "mux-b" });
    await socket.waitForEvent((e) => e.thread_id === "mux-a" && isRootLifecycle("interrupted")(e));
    const cancel = await socket.request("run.cancel", {}, { thread_id: "mux-b" });
    expect(cancel).toMatchObject({ type: "success", thread_id: "mux-b", result: { status: "cancelled" } });
    await socket.waitForEvent((e) => e.thread_id === "mux-b" && isRootLifecycle("failed")(e));
    expect(socket.events.filter((e) => e.method === "input.requested").every((e) => e.thread_id === "mux-a")).toBe(true);
    socket.expectValidFrames();
  });
});
