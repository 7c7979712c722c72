/**
 * Structured logs (issue 14 item 17), from a real hub with the JSON logger
 * `npm start` uses (pino): one JSON object per line for run start, end and
 * failure, auth refusals (HTTP and WebSocket) and slow-consumer drops — and
 * never a token, a run's input, an answer or any payload, however the
 * request carried them.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { END, START, StateGraph, interrupt, lastValue, type Checkpointer } from "../../engine/index.ts";
import { jsonLogger, mintToken, type Assistant } from "../../hub/index.ts";
import { TestSocket, WAIT, interruptIdsOf, isRootLifecycle, testHub, wsUrl } from "../support/hub.ts";

const SECRET = "logs-secret-logs-secret-logs-secret-0123456789";
const MARK = { input: "INPUT-MARK-7f3a", answer: "ANSWER-MARK-91bc", blob: "BLOB-MARK-c0de" };

function assistants(checkpointer: Checkpointer): Assistant[] {
  const ask = new StateGraph({ topic: lastValue<string>(), answer: lastValue<unknown>() })
    .addNode("ask", (state) => ({ answer: interrupt({ question: `about ${state.topic}` }) }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer, name: "ask" });
  const boom = new StateGraph({ topic: lastValue<string>() })
    .addNode("boom", () => {
      throw new Error("the model provider is down");
    })
    .addEdge(START, "boom")
    .addEdge("boom", END)
    .compile({ checkpointer, name: "boom" });
  const firehose = new StateGraph({ done: lastValue<boolean>() })
    .addNode("emit", async (_state, runtime) => {
      for (let i = 0; !runtime.signal.aborted; i++) {
        runtime.write({ name: "blob", payload: { i, blob: MARK.blob.repeat(1000) } });
        await nextTurn();
      }
      return { done: true };
    })
    .addEdge(START, "emit")
    .addEdge("emit", END)
    .compile({ checkpointer, name: "firehose" });
  return [
    { id: "ask", description: "asks once", graph: ask },
    { id: "boom", description: "fails", graph: boom },
    { id: "firehose", description: "streams until cancelled", graph: firehose },
  ];
}

describe("structured logs", () => {
  it("log runs, failures, refusals and slow-consumer drops as JSON lines, with no token or payload", async () => {
    const lines: string[] = [];
    const logger = jsonLogger({ destination: { write: (line: string) => void lines.push(line) } });
    const hub = await testHub({ jwtSecret: SECRET, logger, assistants, limits: { sendSoftBytes: 64 * 1024, sendHardBytes: 1024 * 1024 } });
    const records = (): Array<Record<string, unknown>> => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const events = (name: string) => records().filter((r) => r["event"] === name);

    const good = await mintToken({ sub: "olive", tenant: "acme", roles: ["operator", "reviewer", "observer"], expiresIn: "1h" }, SECRET);
    const rita = await mintToken({ sub: "rita", tenant: "acme", roles: ["reviewer"], expiresIn: "1h" }, SECRET);
    const forged = await mintToken({ sub: "mallory", roles: ["admin"] }, "another-secret-another-secret-another-secret");
    const expired = await mintToken({ sub: "old", roles: ["observer"], expiresIn: "-1h" }, SECRET);

    // Refusals: a forged token on REST (header and ?access_token=), an expired one on a socket.
    expect((await fetch(`${hub.url}/threads/t-logs/state`, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
    expect((await fetch(`${hub.url}/assistants?access_token=${forged}`)).status).toBe(401);
    await expect(TestSocket.open(wsUrl(hub, "/threads/t-logs/stream/events"), { headers: { authorization: `Bearer ${expired}` } })).rejects.toThrow(/401/);
    await vi.waitFor(() => expect(events("auth.refused")).toHaveLength(3), WAIT);
    expect(events("auth.refused")).toEqual([
      expect.objectContaining({ level: 40, transport: "http", path: "/threads/t-logs/state", status: 401, code: "unauthenticated", reason: expect.any(String) }),
      expect.objectContaining({ transport: "http", path: "/assistants", status: 401 }),
      expect.objectContaining({ transport: "websocket", path: "/threads/t-logs/stream/events", status: 401, reason: expect.stringMatching(/expired/) }),
    ]);

    // A run that asks, is answered and completes; one that fails.
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-logs/stream/events"), { headers: { authorization: `Bearer ${good}` } });
    await socket.subscribe({ channels: ["lifecycle", "input", "custom"] });
    expect(await socket.request("run.start", { assistant_id: "ask", input: { topic: MARK.input } })).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [id] = interruptIdsOf(socket.events);
    // Answered by a reviewer other than the starter (no self-approval).
    const reviewer = await TestSocket.open(wsUrl(hub, "/threads/t-logs/stream/events"), { headers: { authorization: `Bearer ${rita}` } });
    await reviewer.subscribe({ channels: ["input"] });
    const answered = await reviewer.request("input.respond", { namespace: [], interrupt_id: id, response: { note: MARK.answer } });
    expect(answered, JSON.stringify(answered)).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("completed"));
    const boom = await TestSocket.open(wsUrl(hub, "/threads/t-boom/stream/events"), { headers: { authorization: `Bearer ${good}` } });
    await boom.subscribe({ channels: ["lifecycle"] });
    expect(await boom.request("run.start", { assistant_id: "boom", input: { topic: MARK.input } })).toMatchObject({ type: "success" });
    await boom.waitForEvent(isRootLifecycle("failed"));
    await vi.waitFor(() => expect(events("run.ended")).toHaveLength(3), WAIT);
    expect(events("run.started")).toEqual([
      expect.objectContaining({ level: 30, run_id: expect.any(String), thread_id: "t-logs", tenant: "acme", assistant_id: "ask", started_by: "olive", resume: false }),
      expect.objectContaining({ assistant_id: "ask", resume: true }),
      expect.objectContaining({ assistant_id: "boom", resume: false }),
    ]);
    expect(events("run.ended")).toEqual([
      expect.objectContaining({ status: "interrupted", duration_ms: expect.any(Number) }),
      expect.objectContaining({ status: "completed" }),
      expect.objectContaining({ level: 40, status: "failed", error: expect.stringContaining("the model provider is down") }),
    ]);

    // A socket that stops reading is dropped, and that is logged with who and how far behind.
    const slow = await TestSocket.open(wsUrl(hub, "/threads/t-hose/stream/events"), { headers: { authorization: `Bearer ${good}` } });
    await slow.subscribe({ channels: ["custom"] });
    slow.ws.pause();
    const driver = await TestSocket.open(wsUrl(hub, "/threads/t-hose/stream/events"), { headers: { authorization: `Bearer ${good}` } });
    await driver.request("run.start", { assistant_id: "firehose", input: {} });
    await vi.waitFor(() => expect(events("slow_consumer.dropped")).toHaveLength(1), { timeout: 30_000, interval: 20 });
    await driver.request("run.cancel", {});
    await vi.waitFor(() => expect(events("run.ended").some((r) => r["assistant_id"] === "firehose")).toBe(true), WAIT);
    expect(events("slow_consumer.dropped")[0]).toMatchObject({ transport: "websocket", sub: "olive", tenant: "acme", thread_id: "t-hose", pending_bytes: expect.any(Number) });
    slow.ws.resume();

    // Every line is JSON with level, time and msg; no credential and no payload anywhere.
    for (const r of records()) expect(r).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String), service: "switchboard" });
    const all = lines.join("\n");
    for (const secret of [good, rita, forged, expired, good.split(".")[2] ?? "", MARK.input, MARK.answer, MARK.blob]) expect(all).not.toContain(secret);
  }, 60_000);
});
