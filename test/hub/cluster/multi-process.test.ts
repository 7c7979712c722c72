/**
 * Three hub processes on loopback sharing one Postgres database (a fresh
 * schema) and one Redis (a fresh key prefix), serving the demo assistants —
 * the multi-process test:
 * - 30 sockets spread over the three nodes on one thread receive the same ordered events;
 * - 30 reviewers spread over the nodes answer one interrupt at once: one success,
 *   29 already_answered, one resumed run, finalize_calls 1;
 * - kill -9 the node running a `review` run while its draft streams: a surviving
 *   node takes it over, reaches the interrupt, an answer on the third completes it;
 *   observers (one of them reconnecting from the dead node to a survivor) see no
 *   duplicated event id and no gap they were not told about;
 * - stop all nodes and start them again: threads, checkpoints and open review
 *   items are there and answerable.
 */
import { randomBytes } from "node:crypto";
import { afterEach, expect, it, vi } from "vitest";
import type { ProtocolEvent, ProtocolResponse } from "../../../hub/protocol/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { ALL_CHANNELS, TestSocket, WAIT, interruptIdsOf, isRootLifecycle } from "../../support/hub.ts";
import { describeWithCluster, dropSchema, uniqueSchemaName } from "../../support/services.ts";

const LEASE_MS = 2_000;
const nodes: HubProcess[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) await socket.close().catch(() => undefined);
  for (const node of nodes.splice(0)) await node.kill();
});

async function open(node: HubProcess, threadId: string, since?: number): Promise<TestSocket> {
  const socket = await TestSocket.open(`${node.wsUrl}/threads/${threadId}/stream/events`);
  sockets.push(socket);
  await socket.subscribe({ channels: ALL_CHANNELS, ...(since === undefined ? {} : { since }) });
  return socket;
}

const ids = (events: ProtocolEvent[]): string[] => events.map((e) => e.event_id ?? "");
const seqs = (events: ProtocolEvent[]): number[] => events.map((e) => e.seq ?? 0);
const resultOf = (r: ProtocolResponse): Record<string, unknown> => (r.type === "success" ? r.result : {});

describeWithCluster("three hub processes on one Postgres and one Redis", ({ databaseUrl, redisUrl }) => {

  it("one stream per thread, one winning answer, a killed node's run taken over, everything kept over a restart", { timeout: 180_000 }, async () => {
    const schema = uniqueSchemaName("procs");
    const env = {
      SWITCHBOARD_DATABASE_URL: databaseUrl,
      SWITCHBOARD_REDIS_URL: redisUrl,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_REDIS_PREFIX: `sbtest:${randomBytes(6).toString("hex")}:`,
      SWITCHBOARD_RUN_LEASE_MS: String(LEASE_MS),
      SWITCHBOARD_DEMO_TOKEN_DELAY_MS: "20",
    };
    const start = async (i: number): Promise<HubProcess> => {
      const node = await HubProcess.start({ entry: "child", env: { ...env, SWITCHBOARD_NODE_ID: `node-${i}` } });
      nodes.push(node);
      return node;
    };
    try {
      // Started at once on an empty database: the schema is created once, none fails.
      const cluster = await Promise.all([0, 1, 2].map(start));

      // 30 sockets over three nodes, one thread: the same ordered events everywhere.
      const watchers = await Promise.all(Array.from({ length: 30 }, (_, i) => open(cluster[i % 3]!, "t-fan")));
      await watchers[0]!.request("run.start", { assistant_id: "review", input: { topic: "three nodes" } });
      await Promise.all(watchers.map((w) => w.waitForEvent(isRootLifecycle("interrupted"))));
      const reference = ids(watchers[0]!.events);
      expect(reference.length).toBeGreaterThan(40);
      for (const w of watchers) expect(ids(w.events)).toEqual(reference);
      const s = seqs(watchers[0]!.events);
      expect(s).toEqual([...s].sort((x, y) => x - y));

      // 30 reviewers over three nodes answer the one interrupt at once.
      const [interruptId] = interruptIdsOf(watchers[0]!.events);
      const answers = await Promise.all(
        watchers.map((w, i) => w.request("input.respond", { namespace: [], interrupt_id: interruptId, response: `answer ${i}` })),
      );
      const won = answers.filter((a) => a.type === "success");
      expect(won).toHaveLength(1);
      const lost = answers.filter((a) => a.type === "error");
      expect(lost).toHaveLength(29);
      for (const a of lost) expect(a).toMatchObject({ type: "error", error: "already_answered" });
      expect(resultOf(won[0]!)).toMatchObject({ resumed: true });
      await Promise.all(watchers.map((w) => w.waitForEvent(isRootLifecycle("completed"))));
      const after = watchers[5]!.events.filter((e) => e.seq! > Number(reference.at(-1)));
      const resumedRuns = after.filter((e) => e.method === "lifecycle" && e.params.namespace.length === 0 && e.params.data.event === "started");
      expect(resumedRuns).toHaveLength(1);
      const fan = (await (await fetch(`${cluster[1]!.url}/threads/t-fan/state`)).json()) as Record<string, unknown>;
      expect(fan).toMatchObject({ values: { finalize_calls: 1 } });
      for (const w of watchers) await w.close();

      // kill -9 the node running a review run while its draft streams.
      const [runner, survivor, third] = cluster as [HubProcess, HubProcess, HubProcess];
      const observer = await open(survivor, "t-crash");
      const doomed = await open(runner, "t-crash");
      const started = await doomed.request("run.start", { assistant_id: "review", input: { topic: "crash" } });
      const runId = resultOf(started)["run_id"];
      await observer.waitForEvent((e) => e.method === "messages" && e.params.data.event === "content-block-delta");
      const killedAt = performance.now();
      await runner.kill();
      const lastSeen = doomed.events.at(-1)?.seq ?? 0;
      // The dead node's observer reconnects to the third node with the last seq it saw.
      const moved = await open(third, "t-crash", lastSeen);
      const takenOver = await observer.waitForEvent((e) => e.method === "lifecycle" && e.params.data.taken_over === true, "the takeover");
      expect(performance.now() - killedAt).toBeLessThan(LEASE_MS + 10_000);
      expect(takenOver).toMatchObject({ run_id: runId, params: { data: { event: "running", previous_node_id: "node-0" } } });
      await observer.waitForEvent(isRootLifecycle("interrupted"));
      const [crashInterrupt] = interruptIdsOf(observer.events);
      const newOwner = takenOver.method === "lifecycle" ? takenOver.params.data.node_id : undefined;
      const answerer = newOwner === "node-1" ? third : survivor;
      const answered = await (await TestSocket.open(`${answerer.wsUrl}/threads/t-crash/stream/events`).then((s) => (sockets.push(s), s))).request("input.respond", {
        namespace: [],
        interrupt_id: crashInterrupt,
        response: "approve",
      });
      expect(answered).toMatchObject({ type: "success", result: { resumed: true } });
      await observer.waitForEvent(isRootLifecycle("completed"));
      await moved.waitForEvent(isRootLifecycle("completed"));
      // The run names its last owner on every node, after it ended too (the resume ran where the answer was taken).
      for (const node of [survivor, third]) {
        const run = (await (await fetch(`${node.url}/threads/t-crash/runs/${String(runId)}`)).json()) as Record<string, unknown>;
        expect(run).toMatchObject({ run_id: runId, node_id: newOwner });
        const thread = (await (await fetch(`${node.url}/threads/t-crash`)).json()) as Record<string, unknown>;
        expect(thread).toMatchObject({ run: { node_id: newOwner === "node-1" ? "node-2" : "node-1" } });
      }
      // No event id twice, no gap: every seq once, consecutive (all channels are subscribed).
      const watched = seqs(observer.events);
      expect(new Set(watched).size).toBe(watched.length);
      expect(watched.at(-1)! - watched[0]!).toBe(watched.length - 1);
      const rejoined = [...seqs(doomed.events), ...seqs(moved.events)];
      expect(new Set(rejoined).size).toBe(rejoined.length);
      expect(rejoined).toEqual(watched.slice(watched.indexOf(rejoined[0]!)));
      const crash = (await (await fetch(`${survivor.url}/threads/t-crash/state`)).json()) as Record<string, unknown>;
      expect(crash).toMatchObject({ values: { decision: "approve", finalize_calls: 1 } });

      // An open question, then every node stopped and started again.
      const asker = await open(survivor, "t-open");
      await asker.request("run.start", { assistant_id: "review", input: { topic: "restart" } });
      await asker.waitForEvent(isRootLifecycle("interrupted"));
      const [openInterrupt] = interruptIdsOf(asker.events);
      await asker.close();
      for (const node of nodes.splice(0)) await node.stop();
      const again = await Promise.all([3, 4, 5].map(start));
      const thread = (await (await fetch(`${again[2]!.url}/threads/t-open`)).json()) as Record<string, unknown>;
      expect(thread).toMatchObject({ status: "interrupted" });
      expect(Object.values(thread["interrupts"] as Record<string, Array<{ id: string }>>).flat().map((i) => i.id)).toEqual([openInterrupt]);
      const history = (await (await fetch(`${again[0]!.url}/threads/t-crash/history?limit=50`)).json()) as unknown[];
      expect(history.length).toBeGreaterThan(2);
      const item = (await (await fetch(`${again[1]!.url}/reviews/${openInterrupt}`)).json()) as Record<string, unknown>;
      expect(item).toMatchObject({ status: "open" });
      const late = await open(again[1]!, "t-open");
      await late.request("input.respond", { namespace: [], interrupt_id: openInterrupt, response: "later" });
      await late.waitForEvent(isRootLifecycle("completed"));
      await vi.waitFor(async () => {
        const done = (await (await fetch(`${again[0]!.url}/threads/t-open/state`)).json()) as Record<string, unknown>;
        expect(done).toMatchObject({ values: { decision: "later", finalize_calls: 1 } });
      }, WAIT);
    } finally {
      for (const node of nodes.splice(0)) await node.kill();
      await dropSchema(databaseUrl, schema);
    }
  });
});
