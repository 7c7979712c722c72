/**
 * Webhooks on two hub nodes sharing one Postgres (and Redis): both nodes'
 * workers claim from the one outbox, yet every event reaches the receiver
 * exactly once — the deciding node enqueues it once, one node's lease sends
 * it. The receiver answers each question on the other node, from the
 * interrupt id the webhook carried.
 */
import { randomBytes } from "node:crypto";
import { expect, it, vi } from "vitest";
import { internalsOf } from "../../../../hub/hub.ts";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { onCleanup, testHub, WAIT } from "../../../support/hub.ts";
import { describeWithCluster, dropSchema, uniqueSchemaName } from "../../../support/services.ts";
import { startReceiver } from "./receiver.ts";

describeWithCluster("webhooks on two nodes", ({ databaseUrl, redisUrl }) => {
  it("every event of six review runs is delivered exactly once, whichever node decided or sends it", async () => {
    const secret = newSecret();
    const receiver = await startReceiver(secret, () => new Promise((resolve) => setTimeout(() => resolve(204), 20)));
    const schema = uniqueSchemaName("hooks");
    const redisPrefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const webhooks = { endpoints: [{ id: "ops", url: receiver.url, secret, tenant: "default", events: ["input.requested", "input.answered", "run.completed"] }], pollMs: 50 };
    const nodes = [];
    for (const nodeId of ["node-a", "node-b"]) {
      nodes.push(await testHub({ demoTokenDelayMs: 1, webhooks, cluster: { databaseUrl, redisUrl, schema, redisPrefix, nodeId, runLeaseMs: 1_000 } }));
    }
    onCleanup(() => dropSchema(databaseUrl, schema));
    const [a, b] = nodes as [(typeof nodes)[number], (typeof nodes)[number]];
    const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

    const threads = Array.from({ length: 6 }, (_, i) => `wh-node-${i}`);
    for (const [i, thread] of threads.entries()) {
      const started = await post(`${(i % 2 === 0 ? a : b).url}/threads/${thread}/commands`, { id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: thread } } });
      expect(await started.json()).toMatchObject({ type: "success" });
    }
    await vi.waitFor(() => expect(receiver.accepted.filter((r) => r.type === "input.requested")).toHaveLength(6), WAIT);
    for (const requested of receiver.accepted.filter((r) => r.type === "input.requested")) {
      // Answered on the node that did not start the run.
      const i = threads.indexOf(String(requested.data["thread_id"]));
      const answered = await post(`${(i % 2 === 0 ? b : a).url}/reviews/${String(requested.data["interrupt_id"])}/answer`, { response: "approve" });
      expect(answered.status).toBe(200);
    }
    await vi.waitFor(() => expect(receiver.accepted.filter((r) => r.type === "run.completed")).toHaveLength(6), WAIT);
    await vi.waitFor(() => expect(receiver.accepted.filter((r) => r.type === "input.answered")).toHaveLength(6), WAIT);
    const ids = receiver.received.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(new Set(receiver.accepted.filter((r) => r.type === "run.completed").map((r) => r.data["thread_id"]))).toEqual(new Set(threads));
    // One row per event in the shared outbox, each sent by one attempt of one node.
    const outbox = internalsOf(a).webhooks.outbox;
    await vi.waitFor(async () => expect((await outbox.list({ tenant: "default", limit: 100 })).every((d) => d.status === "delivered")).toBe(true), WAIT);
    const rows = await outbox.list({ tenant: "default", limit: 100 });
    expect(rows).toHaveLength(18);
    expect(rows.map((d) => d.attempts.length)).toEqual(rows.map(() => 1));
    expect(rows.every((d) => d.attempts[0]?.node === "node-a" || d.attempts[0]?.node === "node-b")).toBe(true);
  });
});
