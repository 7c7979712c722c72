/**
 * Three hub processes on one Postgres (a fresh schema) and one Redis (a fresh
 * key prefix), with JWT principals: what a person on one node sees of what
 * happens on another.
 * - review queues: a queue subscriber on node B sees the item a run on node A
 *   raised, the claim taken on node C, and the answer;
 * - claims: a claim taken on C is honoured on B (claim_held naming it);
 * - presence: a thread's room shows the viewers of every node, a late joiner
 *   on a third node gets their states, a viewer who leaves is removed everywhere;
 * - threads lists: a threads.subscribe on C hears the status a run on A wrote
 *   and a deletion on B;
 * - runs: run.cancel on B stops a run on A; run.start on C with
 *   multitask_strategy "interrupt" replaces it, "reject" names the node that
 *   runs it, "enqueue" on B waits for it and starts when it ends.
 */
import { randomBytes } from "node:crypto";
import { afterEach, expect, it, vi } from "vitest";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import { mintToken } from "../../../hub/auth/index.ts";
import { decodeAwarenessEntries, decodeBase64Update, encodeBase64Update } from "../../../hub/presence/index.ts";
import type { ProtocolEvent, ProtocolResponse } from "../../../hub/protocol/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { ALL_CHANNELS, TestSocket, WAIT, interruptIdsOf, isRootLifecycle } from "../../support/hub.ts";
import { describeWithCluster, dropSchema, uniqueSchemaName } from "../../support/services.ts";

const SECRET = "across-nodes-secret-that-is-long-enough!!";
const REVIEWER = ["observer", "reviewer"];
const OPERATOR = ["observer", "operator"];

const nodes: HubProcess[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) await socket.close().catch(() => undefined);
  for (const node of nodes.splice(0)) await node.kill();
});

async function openAs(node: HubProcess, sub: string, roles: readonly string[]): Promise<TestSocket> {
  const token = await mintToken({ sub, name: `${sub} (token)`, tenant: "acme", roles, expiresIn: "10 min" }, SECRET);
  const socket = await TestSocket.open(`${node.wsUrl}/ws`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(socket);
  return socket;
}

async function getJson(node: HubProcess, path: string): Promise<Record<string, unknown>> {
  const token = await mintToken({ sub: "olga", tenant: "acme", roles: OPERATOR, expiresIn: "10 min" }, SECRET);
  const res = await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

function ok(response: ProtocolResponse): Record<string, unknown> {
  expect(response).toMatchObject({ type: "success" });
  return response.type === "success" ? response.result : {};
}

/** A client-side awareness state, as a browser tab would send it. */
function awarenessUpdate(state: Record<string, unknown>): { update: string; clientID: number; awareness: Awareness } {
  const doc = new Y.Doc();
  const awareness = new Awareness(doc);
  awareness.setLocalState(state);
  return { update: encodeBase64Update(encodeAwarenessUpdate(awareness, [doc.clientID])), clientID: doc.clientID, awareness };
}

/** Every state the socket's presence events carried, last write per clientID (null = removed). */
function statesOf(events: ProtocolEvent[]): Map<number, Record<string, unknown> | null> {
  const states = new Map<number, Record<string, unknown> | null>();
  for (const e of events) {
    if (e.method !== "presence") continue;
    const bytes = decodeBase64Update(e.params.data.update);
    const decoded = bytes && decodeAwarenessEntries(bytes, { maxEntries: 100, maxStateBytes: 1 << 16 });
    if (!decoded?.ok) throw new Error("malformed presence frame");
    for (const entry of decoded.entries) states.set(entry.clientID, entry.state as Record<string, unknown> | null);
  }
  return states;
}

describeWithCluster("three hub processes: queues, claims, presence and run commands across nodes", ({ databaseUrl, redisUrl }) => {

  it("a queue subscriber, a claim, presence and run commands see and act on every node", { timeout: 180_000 }, async () => {
    const schema = uniqueSchemaName("across");
    const env = {
      SWITCHBOARD_DATABASE_URL: databaseUrl,
      SWITCHBOARD_REDIS_URL: redisUrl,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_REDIS_PREFIX: `sbtest:${randomBytes(6).toString("hex")}:`,
      SWITCHBOARD_RUN_LEASE_MS: "2000",
      SWITCHBOARD_DEMO_TOKEN_DELAY_MS: "25",
      SWITCHBOARD_JWT_SECRET: SECRET,
    };
    try {
      const [a, b, c] = await Promise.all(
        [0, 1, 2].map(async (i) => {
          const node = await HubProcess.start({ entry: "child", env: { ...env, SWITCHBOARD_NODE_ID: `node-${i}` } });
          nodes.push(node);
          return node;
        }),
      ) as [HubProcess, HubProcess, HubProcess];

      // Review queues: ann follows the default queue on node B; olga's run on node A asks.
      const ann = await openAs(b, "ann", REVIEWER);
      ok(await ann.request("queue.subscribe", { queue: "default" }));
      // Threads lists: tess follows the tenant's threads on node C.
      const tess = await openAs(c, "tess", ["observer"]);
      ok(await tess.request("threads.subscribe", {}));
      const olga = await openAs(a, "olga", OPERATOR);
      await olga.subscribe({ channels: ALL_CHANNELS }, { thread_id: "t-q" });
      ok(await olga.request("run.start", { assistant_id: "review", input: { topic: "queues" } }, { thread_id: "t-q" }));
      const requested = await ann.waitForEvent((e) => e.method === "input.requested", "the item raised on node A");
      expect(requested).toMatchObject({ thread_id: "t-q", queue: "default" });
      const interruptId = requested.method === "input.requested" ? requested.params.data.interrupt_id : "";
      await olga.waitForEvent(isRootLifecycle("interrupted"));
      expect(interruptIdsOf(olga.events)).toEqual([interruptId]);
      // The thread's record as node A wrote it, on node C's threads list.
      await tess.waitForEvent((e) => e.method === "thread.status" && e.thread_id === "t-q" && e.params.data.status === "interrupted", "node A's thread status on node C");

      // Claims: bob claims on node C; ann's answer on node B is refused naming bob.
      const bob = await openAs(c, "bob", REVIEWER);
      ok(await bob.request("input.claim", { interrupt_id: interruptId, ttl_ms: 60_000 }, { thread_id: "t-q" }));
      await ann.waitForEvent((e) => e.method === "input.claimed", "bob's claim on node C");
      const refused = await ann.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "mine" }, { thread_id: "t-q" });
      expect(refused).toMatchObject({ type: "error", error: "claim_held", details: { claimed_by: { sub: "bob" } } });

      // Presence: viewers of the thread on all three nodes see each other.
      const viewers = [await openAs(a, "vic", REVIEWER), await openAs(b, "wes", REVIEWER)];
      for (const v of viewers) await v.subscribe({ channels: ["lifecycle"] }, { thread_id: "t-q" });
      const vic = awarenessUpdate({ user: { sub: "spoofed", name: "spoofed" }, looking_at: interruptId });
      ok(await viewers[0]!.request("presence.update", { update: vic.update }, { thread_id: "t-q" }));
      const wes = awarenessUpdate({ looking_at: "draft" });
      ok(await viewers[1]!.request("presence.update", { update: wes.update }, { thread_id: "t-q" }));
      // Stamped by vic's node with vic's identity, relayed to node B's viewer.
      await vi.waitFor(() => expect(statesOf(viewers[1]!.events).get(vic.clientID)).toMatchObject({ user: { sub: "vic" }, looking_at: interruptId }), WAIT);
      await vi.waitFor(() => expect(statesOf(viewers[0]!.events).get(wes.clientID)).toMatchObject({ user: { sub: "wes" }, looking_at: "draft" }), WAIT);
      // A late joiner on node C (a room new there) gets both.
      const late = await openAs(c, "lea", REVIEWER);
      await late.subscribe({ channels: ["lifecycle"] }, { thread_id: "t-q" });
      await vi.waitFor(() => {
        const states = statesOf(late.events);
        expect(states.get(vic.clientID)).toMatchObject({ user: { sub: "vic" } });
        expect(states.get(wes.clientID)).toMatchObject({ user: { sub: "wes" } });
      }, WAIT);
      // Another node's clientID cannot be taken over here.
      expect(await late.request("presence.update", { update: vic.update }, { thread_id: "t-q" })).toMatchObject({ type: "error" });
      // vic leaves node A: gone on B and C.
      await viewers[0]!.close();
      await vi.waitFor(() => expect(statesOf(viewers[1]!.events).get(vic.clientID)).toBeNull(), WAIT);
      await vi.waitFor(() => expect(statesOf(late.events).get(vic.clientID)).toBeNull(), WAIT);
      vic.awareness.destroy();
      wes.awareness.destroy();

      // bob answers on node C: ann's queue on node B hears it.
      ok(await bob.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" }, { thread_id: "t-q" }));
      await ann.waitForEvent((e) => e.method === "input.answered", "bob's answer on node C");
      await olga.waitForEvent(isRootLifecycle("completed"));

      // run.cancel on node B stops a run executing on node A.
      const watch = await openAs(a, "olga", OPERATOR);
      await watch.subscribe({ channels: ALL_CHANNELS }, { thread_id: "t-run" });
      const first = ok(await watch.request("run.start", { assistant_id: "review", input: { topic: "cancel" } }, { thread_id: "t-run" }))["run_id"];
      await watch.waitForEvent((e) => e.method === "messages" && e.run_id === first, "the draft streaming on node A");
      const otto = await openAs(b, "otto", OPERATOR);
      const cancelled = ok(await otto.request("run.cancel", { run_id: first }, { thread_id: "t-run" }));
      expect(cancelled).toMatchObject({ run_id: first, status: "cancelled" });
      await watch.waitForEvent((e) => isRootLifecycle("cancelled")(e) || (e.method === "lifecycle" && e.run_id === first && e.params.data.cancelled === true), "the cancelled run");
      expect(await getJson(c, `/threads/t-run/runs/${String(first)}`)).toMatchObject({ switchboard_status: "cancelled", node_id: "node-0" });

      // A new run on node A; on node C "reject" names node A, "interrupt" replaces the run.
      const second = ok(await watch.request("run.start", { assistant_id: "review", input: { topic: "interrupt" } }, { thread_id: "t-run" }))["run_id"];
      await watch.waitForEvent((e) => e.method === "messages" && e.run_id === second, "the second draft on node A");
      const cleo = await openAs(c, "cleo", OPERATOR);
      const rejected = await cleo.request("run.start", { assistant_id: "review", input: { topic: "reject" }, multitask_strategy: "reject" }, { thread_id: "t-run" });
      expect(rejected).toMatchObject({ type: "error", error: "thread_busy", details: { run_id: second, node_id: "node-0" } });
      const third = ok(await cleo.request("run.start", { assistant_id: "review", input: { topic: "interrupt" }, multitask_strategy: "interrupt" }, { thread_id: "t-run" }))["run_id"];
      expect(await getJson(b, `/threads/t-run/runs/${String(second)}`)).toMatchObject({ switchboard_status: "cancelled", node_id: "node-0" });
      expect(await getJson(b, `/threads/t-run`)).toMatchObject({ run: { run_id: third, status: "running", node_id: "node-2" } });

      // "enqueue" on node B waits for node C's run and starts when it ends (cancelled from node A).
      const fourth = ok(await otto.request("run.start", { assistant_id: "review", input: { topic: "queued" }, multitask_strategy: "enqueue" }, { thread_id: "t-run" }))["run_id"];
      expect(await getJson(a, `/threads/t-run/runs/${String(fourth)}`)).toMatchObject({ switchboard_status: "pending", node_id: null });
      expect(ok(await watch.request("run.cancel", { run_id: third }, { thread_id: "t-run" }))).toMatchObject({ run_id: third, status: "cancelled" });
      await watch.waitForEvent((e) => e.method === "lifecycle" && e.run_id === fourth && e.params.data.event === "interrupted", "the queued run, at its question");
      expect(await getJson(c, `/threads/t-run/runs/${String(fourth)}`)).toMatchObject({ switchboard_status: "interrupted", node_id: "node-1" });

      // A thread deleted on node B leaves node C's threads list.
      const token = await mintToken({ sub: "olga", tenant: "acme", roles: OPERATOR, expiresIn: "10 min" }, SECRET);
      expect((await fetch(`${b.url}/threads/t-q`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })).status).toBe(204);
      await tess.waitForEvent((e) => e.method === "thread.status" && e.thread_id === "t-q" && e.params.data.deleted === true, "node B's deletion on node C");
    } finally {
      for (const node of nodes.splice(0)) await node.kill();
      await dropSchema(databaseUrl, schema);
    }
  });
});
