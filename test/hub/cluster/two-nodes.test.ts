/**
 * Two hub nodes in one process on the machine's Postgres (a fresh schema) and
 * Redis (a fresh key prefix): one stream per thread across nodes, answers taken
 * on the node that does not run the run, and a run whose lease lapses taken
 * over by the other node. (The three-process test is in multi-process.test.ts.)
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { HubConfig } from "../../../hub/index.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { TestSocket, WAIT, interruptIdsOf, isRootLifecycle, onCleanup, testHub, wsUrl } from "../../support/hub.ts";
import { describeWithCluster, dropSchema, uniqueSchemaName } from "../../support/services.ts";

describeWithCluster("two hub nodes on one Postgres and one Redis", ({ databaseUrl, redisUrl }) => {

  async function cluster(count: number, extra: Partial<HubConfig["cluster"]> = {}, hub: HubConfig = {}) {
    const schema = uniqueSchemaName("nodes");
    const redisPrefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const nodes = [];
    for (let i = 0; i < count; i++) {
      nodes.push(
        await testHub({
          demoTokenDelayMs: 2,
          ...hub,
          cluster: { databaseUrl, redisUrl, schema, redisPrefix, nodeId: `node-${i}`, runLeaseMs: 1_000, ...extra },
        }),
      );
    }
    onCleanup(() => dropSchema(databaseUrl, schema));
    return nodes;
  }

  const ids = (events: ProtocolEvent[]): string[] => events.map((e) => e.event_id ?? "");

  it("gives every event of a thread one seq on both nodes; an answer on the other node resumes the run once", async () => {
    const [a, b] = await cluster(2);
    const onA = await TestSocket.open(wsUrl(a!, "/threads/t1/stream/events"));
    const onB = await TestSocket.open(wsUrl(b!, "/threads/t1/stream/events"));
    await onA.subscribe({ channels: ["lifecycle", "messages", "input", "values"] });
    await onB.subscribe({ channels: ["lifecycle", "messages", "input", "values"] });
    await onA.request("run.start", { assistant_id: "review", input: { topic: "nodes" } });
    await onA.waitForEvent(isRootLifecycle("interrupted"));
    await onB.waitForEvent(isRootLifecycle("interrupted"));
    expect(ids(onB.events)).toEqual(ids(onA.events));
    const seqs = onA.events.map((e) => e.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const [interruptId] = interruptIdsOf(onB.events);
    const answer = await onB.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" });
    expect(answer).toMatchObject({ type: "success", result: { resumed: true } });
    await onA.waitForEvent(isRootLifecycle("completed"));
    await onB.waitForEvent(isRootLifecycle("completed"));
    await vi_waitEqual(() => ids(onA.events), () => ids(onB.events));
    const state = (await (await fetch(`${a!.url}/threads/t1/state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ values: { decision: "approve", finalize_calls: 1 } });
    // A second run on a thread busy on the other node is refused, naming it.
    await onB.close();
    await onA.close();
  });

  it("restores on one node the subscriptions made on another and replays what they missed", async () => {
    const [a, b] = await cluster(2);
    const first = await TestSocket.open(wsUrl(a!, "/threads/t3/stream/events"));
    const subscriptionId = await first.subscribe({ channels: ["lifecycle", "input", "values"] });
    await first.request("run.start", { assistant_id: "review", input: { topic: "reconnect" } });
    await first.waitForEvent((e) => e.method === "lifecycle" && e.params.data.event === "running");
    const lastSeen = first.events.at(-1)!;
    await first.close();
    const again = await TestSocket.open(wsUrl(b!, "/threads/t3/stream/events"));
    const reply = await again.request("subscription.reconnect", { run_id: lastSeen.run_id, last_event_id: lastSeen.event_id, subscriptions: [subscriptionId] });
    expect(reply).toMatchObject({ type: "success", result: { restored: true, restored_subscriptions: [subscriptionId] } });
    await again.waitForEvent(isRootLifecycle("interrupted"));
    const all = [...first.events, ...again.events].map((e) => e.seq ?? 0);
    expect(new Set(all).size).toBe(all.length);
    expect(again.events[0]!.seq).toBeGreaterThan(lastSeen.seq!);
    await again.close();
  });

  it("cancels by run id a run queued on the other node; it never starts", async () => {
    // A slow draft: the first run is still streaming while the second waits behind it.
    const [a, b] = await cluster(2, {}, { demoTokenDelayMs: 100 });
    const onA = await TestSocket.open(wsUrl(a!, "/threads/t4/stream/events"));
    await onA.subscribe({ channels: ["lifecycle", "messages"] });
    const first = await onA.request("run.start", { assistant_id: "review", input: { topic: "long" } });
    const firstId = first.type === "success" ? String(first.result["run_id"]) : "";
    await onA.waitForEvent((e) => e.method === "messages" && e.run_id === firstId, "the first draft streaming on node-0");
    const onB = await TestSocket.open(wsUrl(b!, "/threads/t4/stream/events"));
    const queued = await onB.request("run.start", { assistant_id: "review", input: { topic: "queued" }, multitask_strategy: "enqueue" });
    const queuedId = queued.type === "success" ? String(queued.result["run_id"]) : "";
    expect(await getJson(`${a!.url}/threads/t4/runs/${queuedId}`)).toMatchObject({ switchboard_status: "pending", node_id: null });
    // Asked on node-0, which neither runs nor queues it.
    const cancelled = await onA.request("run.cancel", { run_id: queuedId });
    expect(cancelled).toMatchObject({ type: "success", result: { run_id: queuedId, status: "cancelled" } });
    expect(await getJson(`${b!.url}/threads/t4/runs/${queuedId}`)).toMatchObject({ switchboard_status: "cancelled" });
    // The first run goes on; once it ends, the thread takes a new run at once (nothing was left queued).
    expect(await getJson(`${a!.url}/threads/t4/runs/${firstId}`)).toMatchObject({ switchboard_status: "running", node_id: "node-0" });
    expect(await onB.request("run.cancel", { run_id: firstId })).toMatchObject({ type: "success", result: { run_id: firstId, status: "cancelled" } });
    const next = await onB.request("run.start", { assistant_id: "review", input: { topic: "after" }, multitask_strategy: "reject" });
    expect(next).toMatchObject({ type: "success" });
    expect(onA.events.some((e) => e.run_id === queuedId)).toBe(false);
    expect(await getJson(`${b!.url}/threads/t4/runs/${queuedId}`)).toMatchObject({ switchboard_status: "cancelled" });
    await onA.close();
    await onB.close();
  });

  it("hands a run over on shutdown: the other node continues it from its checkpoint, announced as taken over", async () => {
    const [a, b] = await cluster(2);
    const onB = await TestSocket.open(wsUrl(b!, "/threads/t2/stream/events"));
    await onB.subscribe({ channels: ["lifecycle", "messages", "input", "values"] });
    const onA = await TestSocket.open(wsUrl(a!, "/threads/t2/stream/events"));
    const started = await onA.request("run.start", { assistant_id: "review", input: { topic: "handover" } });
    const runId = started.type === "success" ? started.result["run_id"] : undefined;
    // The draft is streaming on node-0 when it shuts down; every node names node-0 as its owner.
    await onB.waitForEvent((e) => e.method === "messages");
    for (const node of [a!, b!]) {
      // (Not its status: on a busy machine the short draft may be done by now.)
      expect(await getJson(`${node.url}/threads/t2`)).toMatchObject({ run: { run_id: runId, node_id: "node-0" } });
      expect(await getJson(`${node.url}/threads/t2/runs/${String(runId)}`)).toMatchObject({ run_id: runId, node_id: "node-0" });
    }
    await onA.close();
    await a!.close();
    const takenOver = await onB.waitForEvent((e) => e.method === "lifecycle" && e.params.data.taken_over === true, "the takeover");
    expect(takenOver).toMatchObject({ run_id: runId, params: { namespace: [], data: { event: "running", node_id: "node-1", previous_node_id: "node-0" } } });
    await onB.waitForEvent(isRootLifecycle("interrupted"));
    // The taken-over run names its new node, also once it ended.
    await vi_waitEqual(async () => ((await getJson(`${b!.url}/threads/t2/runs/${String(runId)}`)) as { switchboard_status?: unknown }).switchboard_status, () => "interrupted");
    expect(await getJson(`${b!.url}/threads/t2`)).toMatchObject({ run: { run_id: runId, status: "interrupted", node_id: "node-1" } });
    expect(await getJson(`${b!.url}/threads/t2/runs/${String(runId)}`)).toMatchObject({ node_id: "node-1" });
    const eventIds = ids(onB.events);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    const [interruptId] = interruptIdsOf(onB.events);
    await onB.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "ok" });
    await onB.waitForEvent(isRootLifecycle("completed"));
    const state = (await (await fetch(`${b!.url}/threads/t2/state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ values: { decision: "ok", finalize_calls: 1 } });
    await onB.close();
  });
});

async function vi_waitEqual(left: () => unknown, right: () => unknown): Promise<void> {
  const { vi } = await import("vitest");
  await vi.waitFor(async () => expect(await left()).toEqual(await right()), WAIT);
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.json();
}
