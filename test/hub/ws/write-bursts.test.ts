/**
 * Write batching per burst (hub/ws/server.ts): the frames one synchronous
 * burst of fan-out writes to a socket — here a batch of events published at
 * once, as a batch from the bus is — reach the TCP socket as one writev, a
 * long burst in pieces of at most 64 KiB, and a command's reply is never
 * held behind a burst. Writes are counted at the server socket's stream
 * implementation (`_write` / `_writev`): one call is one syscall.
 */
import { Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { internalsOf } from "../../../hub/hub.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { TestSocket, testHub, wsUrl } from "../../support/hub.ts";

type WriteFn = (this: Socket, ...args: unknown[]) => unknown;
const proto = Socket.prototype as unknown as { _write: WriteFn; _writev: WriteFn };
const original = { write: proto._write, writev: proto._writev };
/** Stream writes per server-side socket, by the client's local port. */
const writes = new Map<number, number>();

beforeEach(() => {
  const count = (socket: Socket): void => {
    if (socket.remotePort !== undefined && socket.localPort !== undefined) writes.set(socket.remotePort, (writes.get(socket.remotePort) ?? 0) + 1);
  };
  proto._write = function (this: Socket, ...args: unknown[]) {
    count(this);
    return original.write.apply(this, args);
  };
  proto._writev = function (this: Socket, ...args: unknown[]) {
    count(this);
    return original.writev.apply(this, args);
  };
});
afterEach(() => {
  proto._write = original.write;
  proto._writev = original.writev;
  writes.clear();
});

function ticks(threadId: string, n: number, size: number): ProtocolEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    type: "event",
    thread_id: threadId,
    method: "custom",
    params: { namespace: [], timestamp: Date.now(), node: "emit", data: { name: "tick", payload: { i, pad: "x".repeat(size) } } },
  }));
}

async function setUp(threadId: string) {
  const hub = await testHub();
  const socket = await TestSocket.open(wsUrl(hub, `/threads/${threadId}/stream/events`));
  await socket.subscribe({ channels: ["custom"] });
  const log = internalsOf(hub).logs.get(threadId);
  if (log === undefined) throw new Error("the thread's log is not open");
  const port = (socket.ws as unknown as { _socket: Socket })._socket.localPort;
  if (port === undefined) throw new Error("no local port");
  return { socket, log, serverWrites: () => writes.get(port) ?? 0 };
}

const tickIndexes = (socket: TestSocket): number[] =>
  socket.events.flatMap((e) => (e.method === "custom" ? [(e.params.data.payload as { i: number }).i] : []));

describe("frames of one burst", () => {
  it("leave in one write per socket", async () => {
    const { socket, log, serverWrites } = await setUp("t-burst");
    const before = serverWrites();
    log.publish(ticks("t-burst", 100, 50));
    await expect.poll(() => tickIndexes(socket).length).toBe(100);
    expect(tickIndexes(socket)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // ~12 KB in one writev (without the batching: 100 writes).
    expect(serverWrites() - before).toBe(1);
    socket.expectValidFrames();
  });

  it("leave in pieces of at most 64 KiB when the burst is long, in order", async () => {
    const { socket, log, serverWrites } = await setUp("t-long");
    const before = serverWrites();
    // 100 frames of ~2 KB: about 200 KB, released every 64 KiB.
    log.publish(ticks("t-long", 100, 2_000));
    await expect.poll(() => tickIndexes(socket).length).toBe(100);
    expect(tickIndexes(socket)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const made = serverWrites() - before;
    expect(made).toBeGreaterThanOrEqual(3);
    expect(made).toBeLessThanOrEqual(5);
  });

  it("never hold a reply: it leaves at once in its own write, a replay behind it in one more", async () => {
    const { socket, log, serverWrites } = await setUp("t-reply");
    log.publish(ticks("t-reply", 50, 50));
    await expect.poll(() => tickIndexes(socket).length).toBe(50);
    const before = serverWrites();
    const id = 7;
    socket.sendRaw(JSON.stringify({ id, method: "subscription.subscribe", params: { channels: ["custom"], since: 0 } }));
    await expect.poll(() => tickIndexes(socket).length).toBe(100);
    // The reply came first, then the 50 replayed events: one write for the reply, one for the replay.
    const at = socket.messages.findIndex((m) => m.type !== "event" && "id" in m && m.id === id);
    expect(socket.messages.slice(at + 1).filter((m) => m.type === "event")).toHaveLength(50);
    expect(serverWrites() - before).toBe(2);
  });
});
