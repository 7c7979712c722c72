/**
 * The per-connection send queue on a fake socket port: direct sends while
 * the buffer is small, merged text deltas while it is large, termination
 * past the hard bound in bytes or in time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HubMetrics } from "../../../hub/metrics.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { LogEntry } from "../../../hub/threads/index.ts";
import { framePayload, textFrame } from "../../../hub/ws/frames.ts";
import { Outbox, type SocketPort } from "../../../hub/sessions/outbox.ts";

class FakePort implements SocketPort {
  sent: string[] = [];
  bufferedAmount = 0;
  readyState = 1;
  terminated = false;
  send(data: string): void {
    this.sent.push(data);
  }
  sendFrame(frame: Buffer): void {
    this.sent.push(framePayload(frame).toString());
  }
  close(): void {
    this.readyState = 3;
  }
  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
  }
}

let seq = 0;
const entry = (event: ProtocolEvent): LogEntry => {
  const stamped = { ...event, seq: ++seq, event_id: String(seq) };
  return new LogEntry(stamped);
};
const delta = (text: string, index = 0, message = "m1"): LogEntry =>
  entry({ type: "event", thread_id: "t", method: "messages", params: { namespace: [], timestamp: 1, node: "draft", data: { event: "content-block-delta", index, delta: { type: "text-delta", text }, run_id: message } } });
const other = (): LogEntry => entry({ type: "event", thread_id: "t", method: "values", params: { namespace: [], timestamp: 1, data: { v: 1 } } });

const limits = { sendSoftBytes: 100, sendHardBytes: 2000, sendQueueMaxMs: 1000, flushIntervalMs: 10 };
const texts = (port: FakePort) =>
  port.sent.map((s) => JSON.parse(s) as ProtocolEvent).map((e) => (e.method === "messages" && e.params.data.event === "content-block-delta" && e.params.data.delta.type === "text-delta" ? e.params.data.delta.text : e.method));

describe("Outbox", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("writes straight through while the socket keeps up", () => {
    const port = new FakePort();
    const outbox = new Outbox(port, limits, new HubMetrics(), { close() {} });
    outbox.sendEntry(delta("a"));
    outbox.sendEntry(delta("b"));
    expect(texts(port)).toEqual(["a", "b"]);
    expect(outbox.queuedFrames).toBe(0);
  });

  it("coalesces adjacent deltas of one block for a slow reader, and flushes in order when it drains", () => {
    const port = new FakePort();
    const metrics = new HubMetrics();
    const outbox = new Outbox(port, limits, metrics, { close() {} });
    port.bufferedAmount = 500;
    for (const piece of ["Hel", "lo", " wor", "ld"]) outbox.sendEntry(delta(piece));
    outbox.sendEntry(delta("X", 1)); // another block: not merged
    outbox.sendEntry(other());
    outbox.sendEntry(delta("!", 1)); // not adjacent to its block any more
    expect(port.sent).toEqual([]);
    expect(outbox.queuedFrames).toBe(4);
    port.bufferedAmount = 0;
    vi.advanceTimersByTime(limits.flushIntervalMs);
    expect(texts(port)).toEqual(["Hello world", "X", "values", "!"]);
    // The merged frame carries the last merged seq.
    const merged = JSON.parse(port.sent[0]!) as ProtocolEvent;
    expect(merged.seq).toBe(seq - 3);
    expect(metrics.deltasCoalesced).toBe(3);
  });

  it("terminates past the hard bound, without a close frame", () => {
    const port = new FakePort();
    const metrics = new HubMetrics();
    const onTerminated = vi.fn();
    const outbox = new Outbox(port, limits, metrics, { close: onTerminated });
    port.bufferedAmount = 1500;
    for (let i = 0; i < 10 && !port.terminated; i++) outbox.sendEntry(other());
    expect(port.terminated).toBe(true);
    expect(onTerminated).toHaveBeenCalledOnce();
    expect(metrics.slowConsumersTerminated).toBe(1);
    outbox.sendEntry(other());
    expect(port.sent).toEqual([]);
  });

  it("drops a reader that stopped at the time bound, though merging keeps its queue small", () => {
    const port = new FakePort();
    const metrics = new HubMetrics();
    const onTerminated = vi.fn();
    const outbox = new Outbox(port, { ...limits, sendHardBytes: 1_000_000 }, metrics, { close: onTerminated });
    port.bufferedAmount = 500;
    // One token every 10 ms of one long message: everything merges into one queued frame.
    for (let i = 0; i < 99 && !port.terminated; i++) {
      outbox.sendEntry(delta("tok "));
      vi.advanceTimersByTime(10);
    }
    expect(port.terminated).toBe(false);
    expect(outbox.queuedFrames).toBe(1);
    expect(metrics.sendQueuedBytes).toBe(outbox.queuedBytes);
    // No more tokens: the retries still see no progress, past the bound.
    vi.advanceTimersByTime(limits.sendQueueMaxMs);
    expect(port.terminated).toBe(true);
    expect(onTerminated).toHaveBeenCalledOnce();
    expect(metrics.slowConsumersTerminated).toBe(1);
    expect(metrics.sendQueuedBytes).toBe(0);
    expect(port.sent).toEqual([]);
  });

  it("does not drop a reader that is slow but reading, however long it stays behind", () => {
    const port = new FakePort();
    const metrics = new HubMetrics();
    const outbox = new Outbox(port, { ...limits, sendHardBytes: 1_000_000 }, metrics, { close() {} });
    port.bufferedAmount = 5_000;
    for (let i = 0; i < 300; i++) {
      outbox.sendEntry(delta("tok "));
      // It reads a little every retry, never enough to catch up.
      port.bufferedAmount -= 10;
      vi.advanceTimersByTime(10);
    }
    expect(port.terminated).toBe(false);
    expect(outbox.queuedFrames).toBe(1);
    port.bufferedAmount = 0;
    vi.advanceTimersByTime(limits.flushIntervalMs);
    expect(texts(port)).toEqual(["tok ".repeat(300)]);
  });

  it("counts a merged delta's bytes as the frame it becomes (escapes and UTF-8 included), and builds it once", () => {
    const port = new FakePort();
    const metrics = new HubMetrics();
    const outbox = new Outbox(port, limits, metrics, { close() {} });
    port.bufferedAmount = 500;
    const pieces = ['say "hi"', "\n", "naïve ", "日本", "\u0001", "\t", "😀"];
    for (const piece of pieces) outbox.sendEntry(delta(piece));
    expect(outbox.queuedFrames).toBe(1);
    const queued = outbox.queuedBytes;
    port.bufferedAmount = 0;
    vi.advanceTimersByTime(limits.flushIntervalMs);
    expect(texts(port)).toEqual([pieces.join("")]);
    // The queue counted what goes on the wire: the frame, header included.
    expect(textFrame(port.sent[0]!).byteLength).toBe(queued);
    expect(metrics.sendQueuedBytes).toBe(0);
    expect(metrics.deltasCoalesced).toBe(pieces.length - 1);
  });
});
