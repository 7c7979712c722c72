/**
 * What a node holds for the bus while Redis is away: bounded in bytes per
 * thread and for the whole node (publishers wait past it), nothing lost, all
 * of it appended in order when Redis is back — and nothing kept per thread
 * once its events are on the bus. Against a redis-server of the test's own,
 * stopped and started again.
 */
import { afterEach, expect, it, vi } from "vitest";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { RedisEventBus } from "../../../hub/storage/redis/event-bus.ts";
import { ThreadLogs } from "../../../hub/threads/index.ts";
import { RedisServer } from "../../support/redis-server.ts";
import { WAIT } from "../../support/hub.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function event(i: number, text: string): ProtocolEvent {
  return { type: "event", method: "custom", params: { namespace: [], timestamp: 0, data: { payload: { i, text } } } };
}

async function setup(limits: { maxBytes: number; maxTotalBytes: number }) {
  const redis = await RedisServer.start();
  closers.push(() => redis.close());
  const bus = await RedisEventBus.connect({ url: redis.url, prefix: "t:" });
  closers.push(() => bus.close());
  const logs = new ThreadLogs({ bus, outbox: { ...limits, retryMs: 20 } });
  closers.push(() => logs.close(100));
  return { redis, bus, logs };
}

it("forgets a thread's outbox once its events are on the bus", async () => {
  const { bus, logs } = await setup({ maxBytes: 1 << 20, maxTotalBytes: 1 << 22 });
  for (let t = 0; t < 200; t++) logs.send(`th${t}`, [event(0, "a"), event(1, "b")]);
  expect(logs.busBacklog().threads).toBe(200);
  await Promise.all(Array.from({ length: 200 }, (_, t) => logs.drained(`th${t}`)));
  expect(logs.busBacklog()).toEqual({ threads: 0, bytes: 0 });
  expect((await bus.read("th199", 0, 10)).entries).toHaveLength(2);
});

it("holds at most its bounds in bytes while Redis is down, makes publishers wait, and appends everything in order when it is back", async () => {
  const text = "é".repeat(200); // 400 bytes of UTF-8, 200 UTF-16 units: the bound counts bytes
  const { redis, bus, logs } = await setup({ maxBytes: 4_000, maxTotalBytes: 12_000 });
  await redis.stop();
  const waits: Array<Promise<void>> = [];
  let firstWait = -1;
  for (let i = 0; i < 60; i++) {
    const wait = logs.send(`th${i % 6}`, [event(i, text)]);
    if (wait !== undefined) {
      if (firstWait < 0) firstWait = i;
      waits.push(wait);
    }
  }
  // ~450 bytes an event: the node's 12,000 are passed after some 27 events, long before any thread's 4,000.
  expect(firstWait).toBeGreaterThan(20);
  expect(firstWait).toBeLessThan(30);
  let released = false;
  void Promise.all(waits).then(() => (released = true));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(released).toBe(false);
  expect(logs.busBacklog().threads).toBe(6);

  await redis.resume();
  await vi.waitFor(() => expect(released).toBe(true), WAIT);
  await Promise.all(Array.from({ length: 6 }, (_, t) => logs.drained(`th${t}`)));
  expect(logs.busBacklog()).toEqual({ threads: 0, bytes: 0 });
  for (let t = 0; t < 6; t++) {
    const { entries } = await bus.read(`th${t}`, 0, 100);
    expect(entries.map((e) => (JSON.parse(e.payload) as { params: { data: { payload: { i: number } } } }).params.data.payload.i)).toEqual(Array.from({ length: 10 }, (_, k) => t + 6 * k));
  }
});
