/**
 * Issue 14, item 4, against a real hub process: sockets that stop reading
 * while a run streams one long message. Their deltas merge into one queued
 * frame (so the queue stays far below the byte bound), and they are dropped at
 * the time bound (`sendQueueMaxMs`); a socket that reads gets the whole text.
 * The CPU side (merging is linear) is measured by
 * test/bench/hub/paused-sockets.ts, not asserted here.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket, isRootLifecycle, textOf } from "../../support/hub.ts";

const TOKENS = 20_000;
// 20,000 deltas of ~500 bytes: 10 MB per socket, more than the kernel's buffers of a loopback socket absorb.
const WORD = "w".repeat(250);
const QUEUE_MAX_MS = 2_000;
// High enough that only the time bound can drop them.
const HARD_BYTES = 256 * 1024 * 1024;
let hub: HubProcess;

beforeAll(async () => {
  hub = await HubProcess.start({ entry: "child", config: { limits: { sendQueueMaxMs: QUEUE_MAX_MS, sendHardBytes: HARD_BYTES } } });
});
afterAll(async () => {
  await hub.stop();
});

describe("sockets that stop reading during a long message", () => {
  it("are dropped at the time bound with their queues bounded in bytes; a reader gets the whole message", { timeout: 180_000 }, async () => {
    const url = `${hub.wsUrl}/threads/t-paused/stream/events`;
    const reader = await TestSocket.open(url);
    await reader.subscribe({ channels: ["messages", "lifecycle"] });
    const paused = await Promise.all(Array.from({ length: 4 }, () => TestSocket.open(url)));
    for (const socket of paused) {
      await socket.subscribe({ channels: ["messages", "lifecycle"] });
      socket.ws.pause();
    }
    await reader.request("run.start", { assistant_id: "long-text", input: { tokens: TOKENS, word: WORD } });

    await expect.poll(() => hub.metric("switchboard_slow_consumers_terminated_total"), { timeout: 60_000, interval: 50 }).toBe(4);
    expect(await hub.metric("switchboard_slow_consumer_backlogs_total")).toBeGreaterThanOrEqual(4);
    expect(await hub.metric("switchboard_slow_consumer_deltas_coalesced_total")).toBeGreaterThan(0);
    // The queues formed and stayed bounded — merged deltas hold about the message's text, and
    // the time bound dropped them (the byte bound is out of reach here).
    const peak = await hub.metric("switchboard_send_queue_peak_bytes");
    console.log(`largest send queue of a socket: ${peak} bytes`);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(Math.min(HARD_BYTES, TOKENS * (WORD.length + 1) * 4));
    await expect.poll(() => hub.metric("switchboard_send_queued_bytes")).toBe(0);
    await expect.poll(() => hub.metric("switchboard_connections")).toBe(1);

    await vi.waitFor(() => expect(reader.events.some(isRootLifecycle("completed"))).toBe(true), { timeout: 60_000 });
    expect(textOf(reader.events)).toBe(Array.from({ length: TOKENS }, () => WORD).join(" "));
    reader.expectValidFrames();
    // A dropped socket sees its connection end once it reads again.
    for (const socket of paused) socket.ws.resume();
    await vi.waitFor(() => expect(paused.every((s) => s.closeCode !== undefined)).toBe(true), { timeout: 60_000 });
  });
});
