/**
 * Review workflows across three hub processes on one Postgres and one Redis
 * (issue 18): the expense-approval demo's refund needs two of rita, sam and
 * tom — rita votes on node B and sam on node C at the same moment, the email
 * is answered on node A — and the run resumes once; an item reassigned on
 * node C appears live in the new queue of a reviewer subscribed on node B.
 */
import { randomBytes } from "node:crypto";
import { afterEach, expect, it, vi } from "vitest";
import { mintToken } from "../../../hub/auth/index.ts";
import type { ProtocolEvent, ProtocolResponse } from "../../../hub/protocol/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket, WAIT, isRootLifecycle } from "../../support/hub.ts";
import { describeWithCluster, dropSchema, uniqueSchemaName } from "../../support/services.ts";

const SECRET = "review-workflows-across-nodes-secret!!";
const REVIEWER = ["observer", "reviewer"];
const OPERATOR = ["observer", "operator"];

const nodes: HubProcess[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) await socket.close().catch(() => undefined);
  for (const node of nodes.splice(0)) await node.kill();
});

async function openAs(node: HubProcess, sub: string, roles: readonly string[]): Promise<TestSocket> {
  const token = await mintToken({ sub, name: sub, tenant: "acme", roles, expiresIn: "10 min" }, SECRET);
  const socket = await TestSocket.open(`${node.wsUrl}/ws`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(socket);
  return socket;
}

function ok(response: ProtocolResponse): Record<string, unknown> {
  expect(response).toMatchObject({ type: "success" });
  return response.type === "success" ? response.result : {};
}

const requestedIds = (events: ProtocolEvent[]) => events.flatMap((e) => (e.method === "input.requested" ? [e.params.data.interrupt_id] : []));

describeWithCluster("three hub processes: quorum votes and reassignment across nodes", ({ databaseUrl, redisUrl }) => {

  it("a 2-of-3 quorum voted on two nodes at once resumes once; a reassignment on one node reaches the new queue on another", { timeout: 180_000 }, async () => {
    const schema = uniqueSchemaName("workflows");
    const env = {
      SWITCHBOARD_DATABASE_URL: databaseUrl,
      SWITCHBOARD_REDIS_URL: redisUrl,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_REDIS_PREFIX: `sbtest:${randomBytes(6).toString("hex")}:`,
      SWITCHBOARD_RUN_LEASE_MS: "2000",
      SWITCHBOARD_JWT_SECRET: SECRET,
    };
    try {
      const [a, b, c] = (await Promise.all(
        [0, 1, 2].map(async (i) => {
          const node = await HubProcess.start({ entry: "child", env: { ...env, SWITCHBOARD_NODE_ID: `node-${i}` } });
          nodes.push(node);
          return node;
        }),
      )) as [HubProcess, HubProcess, HubProcess];

      const tom = await openAs(a, "tom", REVIEWER);
      ok(await tom.request("queue.subscribe", { queue: "finance" }));
      const lee = await openAs(b, "lee", REVIEWER);
      ok(await lee.request("queue.subscribe", { queue: "legal" }));
      const olga = await openAs(a, "olga", OPERATOR);
      await olga.subscribe({ channels: ["lifecycle", "input"] }, { thread_id: "t-exp" });
      ok(await olga.request("run.start", { assistant_id: "expense-approval", input: {} }, { thread_id: "t-exp" }));
      await olga.waitForEvent(isRootLifecycle("interrupted"));
      const [interruptId] = requestedIds(olga.events);
      const refund = `${interruptId}.0`;
      const email = `${interruptId}.1`;
      await vi.waitFor(() => expect(requestedIds(tom.events)).toEqual([refund]), WAIT);

      // The email moves to legal on node C (an override role); lee, subscribed on node B before, sees it arrive.
      const rosa = await openAs(c, "rosa", ["reviewer", "review-admin"]);
      ok(await rosa.request("input.reassign", { interrupt_id: email, queue: "legal", users: ["lee"], reason: "check the wording" }, { thread_id: "t-exp" }));
      await lee.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === email, "the email in legal on node B");
      const moved = await lee.waitForEvent((e) => e.method === "input.reassigned", "input.reassigned on node B");
      expect(moved).toMatchObject({ queue: "legal", params: { data: { interrupt_id: email, by: { sub: "rosa" }, to: { queue: "legal", users: ["lee"] }, reason: "check the wording" } } });
      ok(await lee.request("input.respond", { namespace: [], interrupt_id: email, response: { type: "approve" } }, { thread_id: "t-exp" }));

      // rita on node B and sam on node C vote at once: both count, one decides, the run resumes once.
      const rita = await openAs(b, "rita", REVIEWER);
      const sam = await openAs(c, "sam", REVIEWER);
      const replies = await Promise.all([rita, sam].map((s) => s.request("input.respond", { namespace: [], interrupt_id: refund, response: { type: "approve" } }, { thread_id: "t-exp" })));
      const results = replies.map(ok);
      expect(results.map((r) => r["resumed"]).sort()).toEqual([false, true]);
      await olga.waitForEvent(isRootLifecycle("completed"));
      // tom on node A saw both votes, the second deciding.
      await vi.waitFor(() => expect(tom.events.filter((e) => e.method === "input.voted").map((e) => (e.method === "input.voted" ? e.params.data.outcome : ""))).toEqual(["pending", "approved"]), WAIT);
      expect(await tom.request("input.respond", { namespace: [], interrupt_id: refund, response: { type: "approve" } }, { thread_id: "t-exp" })).toMatchObject({ type: "error", error: "already_answered" });
      const token = await mintToken({ sub: "olga", tenant: "acme", roles: OPERATOR, expiresIn: "10 min" }, SECRET);
      const runs = (await (await fetch(`${c.url}/threads/t-exp/runs`, { headers: { authorization: `Bearer ${token}` } })).json()) as unknown[];
      expect(runs).toHaveLength(2);
      expect(olga.events.filter(isRootLifecycle("started"))).toHaveLength(2);
    } finally {
      await dropSchema(databaseUrl, schema);
    }
  });
});
