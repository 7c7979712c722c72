/**
 * Issue 14, item 6, against a real hub process: one body limit in bytes
 * (`maxFrameBytes`) for every transport — WebSocket frames, `POST /commands`,
 * REST, SSE and the LangGraph API — enforced while the body is read (an
 * endless chunked body is refused after the limit, not read to its end),
 * counted in bytes, not UTF-16 units; ids and metadata with their own limits;
 * 413 `payload_too_large`. A refused request changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../../hub/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket } from "../../support/hub.ts";

const LIMIT = DEFAULT_LIMITS.maxFrameBytes;
let hub: HubProcess;

beforeAll(async () => {
  hub = await HubProcess.start({ entry: "child" });
});
afterAll(async () => {
  await hub.stop();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${hub.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

/**
 * Sends an endless chunked body (1 MiB chunks, pulled as the connection takes
 * them, up to `maxBytes`) and resolves with the response's status and body and
 * how many bytes had been handed over by then.
 */
async function endlessBody(path: string, maxBytes: number): Promise<{ status: number; body: Record<string, unknown>; sent: number }> {
  const chunk = new Uint8Array(1024 * 1024).fill(0x61);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"response":"'));
    },
    pull(controller) {
      if (sent >= maxBytes) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  try {
    const res = await fetch(`${hub.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, sent };
  } catch (error) {
    // The hub answers 413 and closes the connection; a client still sending may see the close first.
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== "EPIPE" && code !== "ECONNRESET") throw error;
    return { status: 413, body: { error: "payload_too_large", message: `the limit is ${LIMIT} bytes (connection closed: ${code})` }, sent };
  }
}

describe("request bodies", () => {
  it("an endless chunked body is refused once it passes the limit, on every route that takes one", { timeout: 60_000 }, async () => {
    for (const path of ["/threads", "/threads/t-big/commands", "/reviews/some-interrupt/answer", "/threads/t-big/runs", "/threads/t-big/stream/events"]) {
      const { status, body, sent } = await endlessBody(path, 200 * 1024 * 1024);
      expect(status, path).toBe(413);
      expect(body, path).toMatchObject({ error: "payload_too_large", message: expect.stringContaining(`the limit is ${LIMIT} bytes`) });
      // Refused while reading: far less than the 200 MiB on offer was sent.
      expect(sent, path).toBeLessThan(64 * 1024 * 1024);
    }
    expect((await fetch(`${hub.url}/threads/t-big`)).status).toBe(404);
  });

  it("a declared Content-Length past the limit is refused before the body is read, with the same limit on every transport", async () => {
    const big = JSON.stringify({ thread_id: "t-meta", metadata: { blob: "x".repeat(30 * 1024 * 1024) } });
    const res = await post("/threads", big);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "payload_too_large", details: { limit: LIMIT } });
    expect((await fetch(`${hub.url}/threads/t-meta`)).status).toBe(404);

    // POST /commands answers as a command error, with the same limit.
    const command = await post("/threads/t-cmd/commands", JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: "x".repeat(LIMIT) } } }));
    expect(command.status).toBe(413);
    expect(await command.json()).toMatchObject({ type: "error", id: null, error: "payload_too_large", details: { limit: LIMIT } });

    // A WebSocket frame past it: payload_too_large, and the socket lives.
    const socket = await TestSocket.open(`${hub.wsUrl}/ws`);
    socket.sendRaw(JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: "x".repeat(LIMIT) } } }));
    expect(await socket.responseTo(null)).toMatchObject({ error: "payload_too_large", details: { limit: LIMIT } });
    expect(await socket.request("threads.subscribe", {})).toMatchObject({ type: "success" });
  });

  it("measures bytes, not UTF-16 units", async () => {
    // 30,000 three-byte characters: 30,000 UTF-16 units (under the limit), 90,000 bytes (over it).
    const text = "日".repeat(30_000);
    const body = JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: text } } });
    expect(body.length).toBeLessThan(LIMIT);
    const res = await post("/threads/t-utf8/commands", body);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "payload_too_large", message: expect.stringContaining(`${Buffer.byteLength(body)} bytes`) });
    const answer = await post("/reviews/some-interrupt/answer", JSON.stringify({ response: text }));
    expect(answer.status).toBe(413);
    const socket = await TestSocket.open(`${hub.wsUrl}/threads/t-utf8/stream/events`);
    socket.sendRaw(body);
    expect(await socket.responseTo(null)).toMatchObject({ error: "payload_too_large" });
    // No run was started by any of them.
    expect(await (await fetch(`${hub.url}/threads/t-utf8/runs`)).json()).toEqual([]);
  });

  it("a thread id and metadata have their own small limits; nothing is created", async () => {
    const longId = "i".repeat(DEFAULT_LIMITS.maxIdBytes + 1);
    const res = await post("/threads", JSON.stringify({ thread_id: longId }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "payload_too_large", message: expect.stringContaining("maxIdBytes") });
    // In bytes: 100 four-byte characters are 400 bytes.
    expect((await post("/threads", JSON.stringify({ thread_id: "😀".repeat(100) }))).status).toBe(413);
    // A URL's thread id too (the socket endpoint creates its thread).
    const refused = await fetch(`${hub.url}/threads/${longId}/stream/events`, { method: "POST", body: JSON.stringify({ channels: ["values"] }) });
    expect(refused.status).toBe(413);

    const metadata = { note: "m".repeat(DEFAULT_LIMITS.maxMetadataBytes) };
    const meta = await post("/threads", JSON.stringify({ thread_id: "t-meta-2", metadata }));
    expect(meta.status).toBe(413);
    expect(await meta.json()).toMatchObject({ error: "payload_too_large", message: expect.stringContaining("maxMetadataBytes") });
    expect((await fetch(`${hub.url}/threads/t-meta-2`)).status).toBe(404);
    const run = await post("/threads/t-meta-3/runs", JSON.stringify({ assistant_id: "review", input: { topic: "x" }, metadata, if_not_exists: "create" }));
    expect(run.status).toBe(413);
    expect((await fetch(`${hub.url}/threads/t-meta-3`)).status).toBe(404);

    // Within the limits all is well.
    const ok = await post("/threads", JSON.stringify({ thread_id: "t-ok", metadata: { note: "fine" } }));
    expect(ok.status).toBe(200);
  });
});
