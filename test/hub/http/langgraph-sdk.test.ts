/**
 * The official `@langchain/langgraph-sdk` 1.15 thread-stream client against a
 * real hub on port 0, over its WebSocket and its SSE transport, unchanged:
 * start a run, stream tokens, see `input.requested`, respond, see completion,
 * reconnect and get replay.
 */
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { mintToken } from "../../../hub/auth/index.ts";
import { REVIEW_DRAFT } from "../../../hub/index.ts";
import { WAIT, onCleanup, tempDataDir, testHub } from "../../support/hub.ts";

type Transport = "websocket" | "sse";

interface Observed {
  method: string;
  seq?: number;
  event_id?: string;
  params: { namespace: string[]; data: Record<string, unknown> };
}

function openThread(url: string, threadId: string, transport: Transport, sockets: WebSocket[] = []) {
  const client = new Client({ apiUrl: url, apiKey: null });
  const thread = client.threads.stream(threadId, {
    assistantId: "review",
    transport,
    reconnectDelayMs: () => 10,
    // Node 20 has no global WebSocket; the factory is the SDK's documented hook.
    webSocketFactory: (wsUrl: string) => {
      const ws = new WebSocket(wsUrl);
      sockets.push(ws);
      return ws as unknown as globalThis.WebSocket;
    },
  });
  const events: Observed[] = [];
  const errors: Error[] = [];
  thread.onEvent((event) => events.push(event as unknown as Observed));
  thread.onError((error) => errors.push(error));
  onCleanup(() => thread.close());
  return { thread, events, errors };
}

const tokensOf = (events: Observed[]): string =>
  events
    .filter((e) => e.method === "messages" && e.params.data["event"] === "content-block-delta")
    .map((e) => String((e.params.data["delta"] as { text?: string }).text ?? ""))
    .join("");

const rootLifecycle = (events: Observed[], status: string): boolean =>
  events.some((e) => e.method === "lifecycle" && e.params.namespace.length === 0 && e.params.data["event"] === status);

describe.each<Transport>(["websocket", "sse"])("official SDK over %s", (transport) => {
  it("starts a run, streams tokens, answers the interrupt, completes; an observer gets the replay", async () => {
    const hub = await testHub({ demoTokenDelayMs: 2 });
    const threadId = `sdk-${transport}`;
    const { thread, events, errors } = openThread(hub.url, threadId, transport);
    const messages = await thread.subscribe(["messages"]);

    await thread.run.start({ input: { topic: "the SDK" } });
    await thread.output; // settles at the first root terminal: interrupted
    expect(thread.interrupted).toBe(true);
    expect(thread.interrupts).toHaveLength(1);
    expect(thread.interrupts[0]).toMatchObject({ payload: { kind: "review", draft: REVIEW_DRAFT }, namespace: [] });
    await vi.waitFor(() => expect(tokensOf(events)).toBe(REVIEW_DRAFT), WAIT);
    void messages;

    await thread.input.respond({ namespace: [], interrupt_id: thread.interrupts[0]!.interruptId, response: "ship it" });
    await vi.waitFor(() => expect(rootLifecycle(events, "completed")).toBe(true), WAIT);
    const state = await thread.state.get({ namespace: [] });
    expect(state.values).toMatchObject({ decision: "ship it", finalize_calls: 1 });

    // Nothing arrived twice (the SDK dedupes by event_id, and so must its input).
    const ids = events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);

    // A second client on the same thread: subscribe replays the current run.
    const observer = openThread(hub.url, threadId, transport);
    const handle = await observer.thread.subscribe(["lifecycle", "input", "values"]);
    void handle;
    await vi.waitFor(() => expect(rootLifecycle(observer.events, "completed")).toBe(true), WAIT);
    expect(observer.events.some((e) => e.method === "input.answered")).toBe(true);
    // The answered question is not replayed as pending.
    expect(observer.thread.interrupts).toEqual([]);
    const lastValues = observer.events.filter((e) => e.method === "values").at(-1);
    expect(lastValues?.params.data).toMatchObject({ decision: "ship it", finalize_calls: 1 });
    expect(errors).toEqual([]);
    expect(observer.errors).toEqual([]);
  });

  it("a late observer of an interrupted thread sees the pending question and can answer it", async () => {
    const hub = await testHub({ demoTokenDelayMs: 0 });
    const threadId = `late-${transport}`;
    const starter = openThread(hub.url, threadId, transport);
    await starter.thread.run.start({ input: { topic: "late" } });
    await starter.thread.output;
    await starter.thread.close();

    const observer = openThread(hub.url, threadId, transport);
    await observer.thread.subscribe(["lifecycle", "input", "values"]);
    await vi.waitFor(() => expect(observer.thread.interrupted).toBe(true), WAIT);
    expect(observer.thread.interrupts).toHaveLength(1);
    await observer.thread.input.respond({ namespace: [], interrupt_id: observer.thread.interrupts[0]!.interruptId, response: "ok" });
    await vi.waitFor(() => expect(rootLifecycle(observer.events, "completed")).toBe(true), WAIT);
    expect(observer.errors).toEqual([]);
  });

  it("typed errors reach the SDK as ProtocolError codes", async () => {
    const hub = await testHub();
    const { thread } = openThread(hub.url, `errors-${transport}`, transport);
    await thread.run.start({ input: { topic: "errors" } });
    await thread.output;
    await expect(thread.input.respond({ namespace: [], interrupt_id: "0123456789abcdef0123456789abcdef", response: 1 })).rejects.toMatchObject({
      code: "no_such_interrupt",
    });
  });
});

describe("official SDK WebSocket reconnect", () => {
  it("re-subscribes after the socket drops and gets the missed events by replay", async () => {
    const hub = await testHub({ demoTokenDelayMs: 2 });
    const sockets: WebSocket[] = [];
    const { thread, events, errors } = openThread(hub.url, "sdk-reconnect", "websocket", sockets);
    await thread.run.start({ input: { topic: "reconnects" } });
    await thread.subscribe(["messages"]);
    await vi.waitFor(() => expect(tokensOf(events).length).toBeGreaterThan(10), WAIT);
    sockets[0]!.terminate();

    await thread.output;
    await vi.waitFor(() => expect(sockets.length).toBeGreaterThan(1), WAIT);
    await vi.waitFor(() => expect(tokensOf(events)).toBe(REVIEW_DRAFT), WAIT);
    const ids = events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);

    await thread.input.respond({ namespace: [], interrupt_id: thread.interrupts[0]!.interruptId, response: "fine" });
    await vi.waitFor(() => expect(rootLifecycle(events, "completed")).toBe(true), WAIT);
    expect((await thread.state.get({ namespace: [] })).values).toMatchObject({ finalize_calls: 1 });
    expect(errors).toEqual([]);
  });
});

describe("official SDK across a hub restart", () => {
  it("finds the pending question on the restarted hub and finishes the run", async () => {
    const dataDir = tempDataDir();
    const first = await testHub({ dataDir });
    const before = openThread(first.url, "sdk-restart", "sse");
    await before.thread.run.start({ input: { topic: "restarts" } });
    await before.thread.output;
    const [asked] = before.thread.interrupts;
    await before.thread.close();
    await first.close();

    const second = await testHub({ dataDir });
    const after = openThread(second.url, "sdk-restart", "websocket");
    await after.thread.subscribe(["lifecycle", "input", "values"]);
    await vi.waitFor(() => expect(after.thread.interrupted).toBe(true), WAIT);
    expect(after.thread.interrupts.map((i) => i.interruptId)).toEqual([asked?.interruptId]);
    await after.thread.input.respond({ namespace: [], interrupt_id: asked!.interruptId, response: "after restart" });
    await vi.waitFor(() => expect(rootLifecycle(after.events, "completed")).toBe(true), WAIT);
    expect((await after.thread.state.get({ namespace: [] })).values).toMatchObject({ decision: "after restart", finalize_calls: 1 });
    expect(after.errors).toEqual([]);
  });
});

describe("official SDK and auth", () => {
  const SECRET = "sdk-test-secret-long-enough-for-hs256!!";

  it("SSE: a bearer token in defaultHeaders authenticates; a missing one fails with status 401", async () => {
    const hub = await testHub({ jwtSecret: SECRET });
    const token = await mintToken({ sub: "ann", tenant: "acme", roles: ["observer", "reviewer", "operator"] }, SECRET);
    const client = new Client({ apiUrl: hub.url, apiKey: null, defaultHeaders: { authorization: `Bearer ${token}` } });
    const thread = client.threads.stream("sdk-auth", { assistantId: "review", transport: "sse" });
    onCleanup(() => thread.close());
    await thread.run.start({ input: { topic: "auth" } });
    await thread.output;
    expect(thread.interrupted).toBe(true);

    const anonymous = new Client({ apiUrl: hub.url, apiKey: null }).threads.stream("sdk-auth", { assistantId: "review", transport: "sse" });
    onCleanup(() => anonymous.close());
    await expect(anonymous.run.start({ input: {} })).rejects.toMatchObject({ status: 401 });
  });

  it("WebSocket: a refused upgrade in close mode fails fast with the status, no retries", async () => {
    const hub = await testHub({ jwtSecret: SECRET, wsRefusal: "close" });
    const sockets: WebSocket[] = [];
    const { thread, errors } = openThread(hub.url, "sdk-ws-auth", "websocket", sockets);
    await expect(thread.run.start({ input: {} })).rejects.toMatchObject({ status: 401 });
    await vi.waitFor(() => expect(errors).toMatchObject([{ status: 401 }]), WAIT);
    expect(sockets).toHaveLength(1);
  });
});

