/**
 * Faults of the services several nodes share, on services the test owns: a
 * redis-server of its own (stopped and started again, empty), and the
 * machine's Postgres behind a TCP proxy the test cuts.
 * - Redis down: the run goes on (its checkpoints are in Postgres) and its
 *   events wait in the node's outbox; when Redis is back, clients get what
 *   Redis still has or a resync, and the thread ends where it should.
 * - Postgres down: commands fail with the retryable `unavailable`, and nothing
 *   they did not store is acknowledged; once it is back they work again.
 * - SIGTERM: a node shutting down hands its run over at once, well before its
 *   lease would lapse.
 */
import { randomBytes } from "node:crypto";
import { afterEach, expect, it, vi } from "vitest";
import type { HubConfig } from "../../../hub/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { ALL_CHANNELS, TestSocket, WAIT, interruptIdsOf, isRootLifecycle, onCleanup, testHub, wsUrl } from "../../support/hub.ts";
import { RedisServer } from "../../support/redis-server.ts";
import { describeWith, dropSchema, serviceUrl, uniqueSchemaName } from "../../support/services.ts";
import { TcpProxy } from "../../support/tcp-proxy.ts";

const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) await socket.close().catch(() => undefined);
});

async function open(hub: { url: string }, threadId: string): Promise<TestSocket> {
  const socket = await TestSocket.open(wsUrl(hub, `/threads/${threadId}/stream/events`));
  sockets.push(socket);
  await socket.subscribe({ channels: ALL_CHANNELS });
  return socket;
}

describeWith("DATABASE_URL", "faults of the services several nodes share", (databaseUrl) => {
  const machineRedis = serviceUrl("REDIS_URL");

  async function nodes(count: number, cluster: Partial<NonNullable<HubConfig["cluster"]>> & { redisUrl: string }, demoTokenDelayMs = 20) {
    const schema = uniqueSchemaName("faults");
    onCleanup(() => dropSchema(databaseUrl, schema));
    const redisPrefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const hubs = [];
    for (let i = 0; i < count; i++) {
      hubs.push(await testHub({ demoTokenDelayMs, cluster: { databaseUrl, schema, redisPrefix, nodeId: `node-${i}`, runLeaseMs: 1_000, ...cluster } }));
    }
    return hubs;
  }

  it("Redis down: the run goes on; when Redis is back (empty) every client is told of the gap and the thread ends where it should", { timeout: 60_000 }, async () => {
    const redis = await RedisServer.start();
    onCleanup(() => redis.close());
    const [a, b] = await nodes(2, { redisUrl: redis.url });
    const onA = await open(a!, "t-redis");
    const onB = await open(b!, "t-redis");
    const started = await onA.request("run.start", { assistant_id: "review", input: { topic: "outage" } });
    expect(started).toMatchObject({ type: "success" });
    await onB.waitForEvent((e) => e.method === "messages" && e.params.data.event === "content-block-delta");
    await redis.stop();
    const stoppedAt = onB.events.length;
    // The run goes on without Redis: its checkpoints reach Postgres, and it reaches its question.
    await vi.waitFor(async () => {
      const thread = (await (await fetch(`${a!.url}/threads/t-redis`)).json()) as Record<string, unknown>;
      expect(thread).toMatchObject({ status: "interrupted" });
    }, WAIT);
    // Nothing reached any client meanwhile (events travel through Redis, also to the node's own).
    expect(onB.events.length).toBeLessThanOrEqual(stoppedAt + 1);

    await redis.resume();
    // Redis came back empty: the events buffered meanwhile are appended under seqs past the old
    // ones, and no stream holds what lies between, so every client is told: a resync.
    for (const socket of [onA, onB]) await socket.waitForEvent((e) => e.method === "resync", "the resync");
    const thread = (await (await fetch(`${b!.url}/threads/t-redis`)).json()) as { interrupts: Record<string, Array<{ id: string }>> };
    const [interruptId] = Object.values(thread.interrupts).flat().map((i) => i.id);
    expect(interruptId).toBeDefined();
    // Answerable on either node, and both nodes' clients see the end.
    expect(await onB.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" })).toMatchObject({ type: "success" });
    for (const socket of [onA, onB]) await socket.waitForEvent(isRootLifecycle("completed"), "the completed run");
    const state = (await (await fetch(`${a!.url}/threads/t-redis/state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ values: { decision: "approve", finalize_calls: 1 } });
    // Seqs never went back: what came after the outage is above what came before.
    for (const socket of [onA, onB]) {
      const seqs = socket.events.map((e) => e.seq ?? 0).filter((s) => s > 0);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    }
  });

  it("Redis back empty: the baseline the nodes know is put back, so a node that opens the thread only now still sees the question; seqs go on upward", { timeout: 60_000 }, async () => {
    const redis = await RedisServer.start();
    onCleanup(() => redis.close());
    const schema = uniqueSchemaName("faults");
    onCleanup(() => dropSchema(databaseUrl, schema));
    const redisPrefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const node = (i: number) => testHub({ demoTokenDelayMs: 0, cluster: { databaseUrl, schema, redisPrefix, nodeId: `node-${i}`, runLeaseMs: 1_000, redisUrl: redis.url } });
    const a = await node(0);
    const onA = await open(a, "t-pins");
    await onA.request("run.start", { assistant_id: "review", input: { topic: "pins" } });
    await onA.waitForEvent(isRootLifecycle("interrupted"), "the question");
    const [interruptId] = interruptIdsOf(onA.events);
    const before = Math.max(...onA.events.map((e) => e.seq ?? 0));

    // Redis restarts without its data: no counter, no stream, no pins for the thread.
    await redis.stop();
    await redis.resume();
    // The first event after it comes from node-0, whose log holds the baseline: a claim of the question.
    expect(await onA.request("input.claim", { interrupt_id: interruptId })).toMatchObject({ type: "success" });
    const claimed = await onA.waitForEvent((e) => e.method === "input.claimed", "the claim");
    expect(claimed.seq).toBeGreaterThan(before);
    await onA.waitForEvent((e) => e.method === "resync", "the resync (what Redis held is gone)");

    // A node that opens the thread only now reads it from Redis alone: the values and the open question are there.
    const b = await node(1);
    const onB = await open(b, "t-pins");
    const asked = await onB.waitForEvent((e) => e.method === "input.requested", "the open question, from the restored pins");
    expect(asked).toMatchObject({ params: { data: { interrupt_id: interruptId } } });
    await onB.waitForEvent((e) => e.method === "values" && e.params.namespace.length === 0, "the last values");
    const seqs = onB.events.map((e) => e.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    // And it is answerable there; both nodes see the end, under seqs past every earlier one.
    expect(await onB.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" })).toMatchObject({ type: "success" });
    for (const socket of [onA, onB]) {
      const done = await socket.waitForEvent(isRootLifecycle("completed"), "the completed run");
      expect(done.seq).toBeGreaterThan(claimed.seq!);
    }
  });

  it("Redis back empty, first event from a node without the thread's log: the baseline is put back from the checkpoint", { timeout: 60_000 }, async () => {
    const redis = await RedisServer.start();
    onCleanup(() => redis.close());
    const schema = uniqueSchemaName("faults");
    onCleanup(() => dropSchema(databaseUrl, schema));
    const redisPrefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const node = (i: number) => testHub({ demoTokenDelayMs: 0, cluster: { databaseUrl, schema, redisPrefix, nodeId: `node-${i}`, runLeaseMs: 1_000, redisUrl: redis.url } });
    const [a, b] = [await node(0), await node(1)];
    const onA = await open(a, "t-seed");
    await onA.request("run.start", { assistant_id: "review", input: { topic: "pins" } });
    await onA.waitForEvent(isRootLifecycle("interrupted"), "the question");
    const [interruptId] = interruptIdsOf(onA.events);
    const before = Math.max(...onA.events.map((e) => e.seq ?? 0));
    await redis.stop();
    await redis.resume();
    // The claim is taken over HTTP on node-1, where nobody watches the thread (no log there).
    const res = await fetch(`${b.url}/threads/t-seed/commands`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: 1, method: "input.claim", params: { interrupt_id: interruptId } }) });
    expect(await res.json()).toMatchObject({ type: "success" });
    const claimed = await onA.waitForEvent((e) => e.method === "input.claimed", "the claim, through the bus");
    expect(claimed.seq).toBeGreaterThan(before);
    await onA.waitForEvent((e) => e.method === "resync", "the resync");
    // A node that opens the thread only now: the question and the values, read back from Redis.
    const c = await node(2);
    const onC = await open(c, "t-seed");
    await onC.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === interruptId, "the open question, restored from the checkpoint");
    await onC.waitForEvent((e) => e.method === "values" && e.params.namespace.length === 0, "the last values");
    const seqs = onC.events.map((e) => e.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(Math.min(...seqs)).toBeGreaterThan(before);
  });

  it("Postgres down: commands fail with the retryable unavailable, nothing unstored is acknowledged; they work again when it is back", { timeout: 60_000 }, async ({ skip }) => {
    if (machineRedis === undefined) return skip("REDIS_URL is not set (set REDIS_URL=redis://127.0.0.1:6379 to run)");
    const target = new URL(databaseUrl);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    onCleanup(() => proxy.cut());
    const [hub] = await nodes(1, { redisUrl: machineRedis, databaseUrl: proxy.rewrite(databaseUrl) }, 0);
    const socket = await open(hub!, "t-pg");
    await socket.request("run.start", { assistant_id: "review", input: { topic: "before" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"), "the first run's question (before the cut)");
    const [interruptId] = interruptIdsOf(socket.events);
    const created = await fetch(`${hub!.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ thread_id: "t-pg2" }) });
    expect(created.ok).toBe(true);
    const other = await open(hub!, "t-pg2");

    await proxy.cut();
    const start = await other.request("run.start", { assistant_id: "review", input: { topic: "during" } });
    expect(start).toMatchObject({ type: "error", error: "unavailable" });
    const answer = await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "during" });
    expect(answer).toMatchObject({ type: "error", error: "unavailable" });
    const rest = await fetch(`${hub!.url}/threads/t-pg`);
    expect(rest.status).toBe(503);
    expect(await rest.json()).toMatchObject({ error: "unavailable" });

    await proxy.restore();
    // Nothing of what was refused was stored: no run on t-pg2, the question still open.
    await vi.waitFor(async () => {
      const res = await fetch(`${hub!.url}/threads/t-pg2/runs`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([]);
    }, WAIT);
    expect(await (await fetch(`${hub!.url}/reviews/${interruptId}`)).json()).toMatchObject({ status: "open" });
    // And the same commands now succeed.
    expect(await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "after" })).toMatchObject({ type: "success" });
    // What Postgres holds says so (the subject here; the events travel through Redis).
    await vi.waitFor(async () => {
      const state = (await (await fetch(`${hub!.url}/threads/t-pg/state`)).json()) as Record<string, unknown>;
      expect(state).toMatchObject({ values: { decision: "after", finalize_calls: 1 } });
    }, WAIT);
    expect(await other.request("run.start", { assistant_id: "review", input: { topic: "after" } })).toMatchObject({ type: "success" });
    await vi.waitFor(async () => {
      const thread = (await (await fetch(`${hub!.url}/threads/t-pg2`)).json()) as Record<string, unknown>;
      expect(thread).toMatchObject({ status: "interrupted" });
    }, WAIT);
  });

  it("SIGTERM: the node hands its run over at once, long before its lease would lapse", { timeout: 120_000 }, async ({ skip }) => {
    if (machineRedis === undefined) return skip("REDIS_URL is not set (set REDIS_URL=redis://127.0.0.1:6379 to run)");
    const leaseMs = 60_000;
    const schema = uniqueSchemaName("sigterm");
    onCleanup(() => dropSchema(databaseUrl, schema));
    const env = {
      SWITCHBOARD_DATABASE_URL: databaseUrl,
      SWITCHBOARD_REDIS_URL: machineRedis,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_REDIS_PREFIX: `sbtest:${randomBytes(6).toString("hex")}:`,
      SWITCHBOARD_RUN_LEASE_MS: String(leaseMs),
      SWITCHBOARD_DEMO_TOKEN_DELAY_MS: "40",
    };
    const [first, second] = await Promise.all([0, 1].map((i) => HubProcess.start({ entry: "child", env: { ...env, SWITCHBOARD_NODE_ID: `node-${i}` } })));
    onCleanup(() => Promise.all([first!.kill(), second!.kill()]).then(() => undefined));
    const watcher = await open(second!, "t-term");
    const onFirst = await open(first!, "t-term");
    await onFirst.request("run.start", { assistant_id: "review", input: { topic: "sigterm" } });
    await watcher.waitForEvent((e) => e.method === "messages" && e.params.data.event === "content-block-delta");
    const stoppedAt = performance.now();
    await first!.stop(); // SIGTERM
    // Well before the lease would lapse (a busy machine may take some seconds to stop a process and sweep).
    const takenOver = await vi.waitFor(() => {
      const found = watcher.events.find((e) => e.method === "lifecycle" && e.params.data.taken_over === true);
      if (!found) throw new Error("no takeover yet");
      return found;
    }, { timeout: leaseMs / 2, interval: 20 });
    expect(performance.now() - stoppedAt).toBeLessThan(leaseMs / 2);
    expect(takenOver).toMatchObject({ params: { data: { node_id: "node-1", previous_node_id: "node-0" } } });
    await watcher.waitForEvent(isRootLifecycle("interrupted"));
    const ids = watcher.events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
