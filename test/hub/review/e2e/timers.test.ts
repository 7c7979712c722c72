/**
 * Review timers through a real hub, with an injected clock and tick() (no
 * sleeping): escalation and reminders seen live on the thread and in the old
 * and new queues, a `deny` resuming the run with the documented denial, a
 * single-node SQLite hub restarted before the escalation time firing it after
 * the restart — and three nodes on one Postgres firing a step once although
 * every node ticks. The events are compared with their PROTOCOL.md examples.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { internalsOf } from "../../../../hub/hub.ts";
import type { ProtocolEvent } from "../../../../hub/protocol/index.ts";
import { describeWithCluster, dropSchema, uniqueSchemaName } from "../../../support/services.ts";
import { onCleanup, testHub } from "../../../support/hub.ts";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { REVIEWER, TestSocket, WAIT, authHeaders, isRootLifecycle, ok, openAs, reviewHub, startAndWait, tempDataDir, testAssistants, wsUrl } from "./helpers.ts";

const MIN = 60_000;
const documented = [...readFileSync(fileURLToPath(new URL("../../../../docs/PROTOCOL.md", import.meta.url)), "utf8").matchAll(/```json protocol-event\n([\s\S]*?)```/g)].map(
  (m) => JSON.parse(m[1] ?? "{}") as ProtocolEvent,
);
const keys = (value: unknown): string[] => (typeof value === "object" && value !== null ? Object.keys(value).sort() : []);

/** The documented example of `method` (with `data.action` = `action` for input.expired) has the real event's data fields. */
function expectDocumented(event: ProtocolEvent): void {
  const action = event.method === "input.expired" ? event.params.data.action : undefined;
  const example = documented.find((d) => d.method === event.method && (action === undefined || (d.method === "input.expired" && d.params.data.action === action)));
  expect(example, `a PROTOCOL.md example of ${event.method}`).toBeDefined();
  expect(keys(example?.params.data)).toEqual(keys(event.params.data));
  expect(keys(example?.params)).toEqual(keys(event.params));
}

const count = (events: ProtocolEvent[], method: string, interruptId: string): number =>
  events.filter((e) => e.method === method && "interrupt_id" in e.params.data && e.params.data.interrupt_id === interruptId).length;

const MANAGER = [...REVIEWER, "manager"];

describe("review timers in a hub", () => {
  it("escalates and reminds after a restart of a single-node SQLite hub; a deny resumes with the denial", async () => {
    let now = Date.now();
    const clock = () => now;
    const dataDir = tempDataDir();
    const review = {
      queue: "ops",
      users: ["carol"],
      escalation: [{ after: "10m", queue: "managers", roles: ["manager"] }],
      remind: { every: "15m", max: 1 },
    };
    const first = await reviewHub({ dataDir, review: { clock } });
    const { ids: [id] } = await startAndWait(first, "t-esc", "gate", { review });
    const { ids: [denied] } = await startAndWait(first, "t-deny", "gate", { review: { users: ["carol"], expiresIn: "20m", onExpire: { action: "deny", reason: "no approval in time" } } });
    now += 5 * MIN;
    await internalsOf(first).reviews.tick();
    expect((await internalsOf(first).reviews.itemsOnThread("acme", "t-esc"))[0]).toMatchObject({ escalationStep: 0, routing: { queue: "ops" } });
    await first.close();

    // Restarted before the escalation is due.
    const second = await reviewHub({ dataDir, review: { clock } });
    const carolThread = await openAs(second, "carol", REVIEWER);
    await carolThread.subscribe({ channels: ["lifecycle", "input"] }, { thread_id: "t-esc" });
    const carolQueue = await openAs(second, "carol", REVIEWER);
    expect(ok(await carolQueue.request("queue.subscribe", { queue: "ops" }))).toMatchObject({ items: 1 });
    const mona = await openAs(second, "mona", MANAGER);
    expect(ok(await mona.request("queue.subscribe", { queue: "managers" }))).toMatchObject({ items: 0 });
    // Mona is no candidate before the escalation.
    expect(await mona.request("input.respond", { namespace: [], interrupt_id: id, response: "early" }, { thread_id: "t-esc" })).toMatchObject({ type: "error", error: "permission_denied" });
    // Carol is working on it when it escalates: her claim stays.
    ok(await carolThread.request("input.claim", { interrupt_id: id, ttl_ms: 3_600_000 }, { thread_id: "t-esc" }));

    now += 5 * MIN;
    await internalsOf(second).reviews.tick();
    const escalated = await carolThread.waitForEvent((e) => e.method === "input.escalated", "input.escalated on the thread");
    expect(escalated).toMatchObject({
      seq: expect.any(Number),
      params: { data: { interrupt_id: id, step: 1, steps: 1, queue: "managers", users: ["carol"], roles: ["manager"], from: { queue: "ops", users: ["carol"], roles: [] } } },
    });
    expectDocumented(escalated);
    // The old queue hears it leave; the new queue sees it appear, then moved.
    await carolQueue.waitForEvent((e) => e.method === "input.escalated", "input.escalated in the old queue");
    expect(carolQueue.events.find((e) => e.method === "input.escalated")).toMatchObject({ queue: "ops", params: { data: { queue: "managers" } } });
    await mona.waitForEvent((e) => e.method === "input.escalated", "input.escalated in the new queue");
    const monaSaw = mona.events.filter((e) => e.method === "input.requested" || e.method === "input.claimed" || e.method === "input.escalated");
    expect(monaSaw.map((e) => [e.method, Reflect.get(e, "queue")])).toEqual([
      ["input.requested", "managers"],
      ["input.claimed", "managers"],
      ["input.escalated", "managers"],
    ]);
    expect(Reflect.get(monaSaw[0]!, "review")).toMatchObject({ queue: "managers", roles: ["manager"] });

    const observer = await authHeaders("olga", ["observer"]);
    const read = async (interruptId: string) => (await (await fetch(`${second.url}/reviews/${interruptId}`, { headers: observer })).json()) as Record<string, unknown>;
    expect(await read(id!)).toMatchObject({ queue: "managers", escalation_step: 1, reminders_sent: 0, overdue: false, next_timer_at: now + 5 * MIN });

    now += 5 * MIN;
    await internalsOf(second).reviews.tick();
    const reminder = await mona.waitForEvent((e) => e.method === "input.reminder", "input.reminder in the new queue");
    expect(reminder).toMatchObject({ queue: "managers", params: { data: { interrupt_id: id, reminder: 1, max: 1, overdue: false, expires_at: null } } });
    expectDocumented(reminder);
    // Nothing more is due: ticking again sends nothing.
    await internalsOf(second).reviews.tick();

    // Past t-deny's deadline: the run resumes with the denial.
    now += 5 * MIN;
    const denyWatch = await openAs(second, "carol", REVIEWER);
    await denyWatch.subscribe({ channels: ["lifecycle", "input"] }, { thread_id: "t-deny" });
    await internalsOf(second).reviews.tick();
    const expired = await denyWatch.waitForEvent((e) => e.method === "input.expired", "input.expired (deny)");
    expect(expired).toMatchObject({ params: { data: { interrupt_id: denied, action: "deny", reason: "no approval in time" } } });
    expectDocumented(expired);
    await denyWatch.waitForEvent(isRootLifecycle("completed"), "the denied run completed");
    const deniedState = ok(await denyWatch.request("state.get", { namespace: [] }, { thread_id: "t-deny" }));
    expect(deniedState["values"]).toMatchObject({ answer: { type: "reject", message: "no approval in time", expired: true }, done_calls: 1 });
    const deniedAudit = (await read(denied!))["audit"] as Array<{ kind: string; detail?: unknown }>;
    expect(deniedAudit.map((e) => e.kind)).toEqual(["requested", "expired"]);

    // Carol hands it back; the widened candidate answers; the run resumes once.
    ok(await carolThread.request("input.release", { interrupt_id: id }, { thread_id: "t-esc" }));
    expect(ok(await mona.request("input.respond", { namespace: [], interrupt_id: id, response: "approved by a manager" }, { thread_id: "t-esc" }))).toMatchObject({ resumed: true });
    await carolThread.waitForEvent(isRootLifecycle("completed"), "t-esc completed");
    expect(count(carolThread.events, "input.escalated", id!)).toBe(1);
    expect(count(carolThread.events, "input.reminder", id!)).toBe(1);
    const audit = (await read(id!))["audit"] as Array<{ kind: string }>;
    expect(audit.map((e) => e.kind)).toEqual(["requested", "rejected", "claimed", "escalated", "reminded", "released", "answered"]);
  });

  it("keep: the item stays in the inbox past its deadline, overdue, and is answered late", async () => {
    let now = Date.now();
    const hub = await reviewHub({ review: { clock: () => now, onExpire: { action: "keep" } } });
    const { ids: [id] } = await startAndWait(hub, "t-keep", "gate", { review: { queue: "ops", expiresIn: "1h" } });
    const carol = await openAs(hub, "carol", REVIEWER);
    await carol.subscribe({ channels: ["lifecycle", "input"] }, { thread_id: "t-keep" });
    const requested = await carol.request("queue.subscribe", { queue: "ops" });
    expect(ok(requested)).toMatchObject({ items: 1 });
    const copy = await carol.waitForEvent((e) => e.method === "input.requested" && Reflect.get(e, "queue") === "ops", "the queue's copy");
    expect(Reflect.get(copy, "review")).toMatchObject({ has_default: false, on_expire: { action: "keep" } });
    now += 61 * MIN;
    await internalsOf(hub).reviews.tick();
    const headers = await authHeaders("olga", ["observer"]);
    await vi.waitFor(async () => {
      const item = (await (await fetch(`${hub.url}/reviews/${id}`, { headers })).json()) as Record<string, unknown>;
      expect(item).toMatchObject({ status: "open", overdue: true, routing: { on_expire: { action: "keep" } }, next_timer_at: null });
    }, WAIT);
    expect(ok(await carol.request("input.respond", { namespace: [], interrupt_id: id, response: "late" }, { thread_id: "t-keep" }))).toMatchObject({ resumed: true });
    await carol.waitForEvent(isRootLifecycle("completed"), "the kept run completed");
    expect(count(carol.events, "input.expired", id!)).toBe(0);
  });
});

describe("review timers to people outside the hub", () => {
  it("escalations, reminders and a deny reach a webhook endpoint that asks for them, signed", async () => {
    let now = Date.now();
    const secret = newSecret();
    const receiver = await startReceiver(secret);
    const endpoint = { id: "pager", url: receiver.url, secret, tenant: "acme", events: ["input.escalated", "input.reminder", "input.expired"] };
    let started: Awaited<ReturnType<typeof reviewHub>> | undefined;
    // Registered first: runs after the hub's own cleanup closed it.
    onCleanup(() => expect(started && internalsOf(started).webhooks.dispatcher?.timerArmed).toBe(false));
    const hub = (started = await reviewHub({ review: { clock: () => now }, webhooks: { endpoints: [endpoint], retryBaseMs: 20, retryMaxMs: 100 } }));
    const review = { users: ["carol"], expiresIn: "30m", onExpire: { action: "deny" }, escalation: [{ after: "10m", queue: "managers" }], remind: { every: "20m" } };
    const { ids: [id] } = await startAndWait(hub, "t-hook", "gate", { review });
    for (const step of [10, 10, 10]) {
      now += step * MIN;
      await internalsOf(hub).reviews.tick();
    }
    await vi.waitFor(() => expect(receiver.accepted.map((r) => r.type)).toEqual(["input.escalated", "input.reminder", "input.expired"]), WAIT);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(receiver.accepted.map((r) => r.data)).toEqual([
      expect.objectContaining({ interrupt_id: id, queue: "managers", step: 1, from: { queue: "default", users: ["carol"], roles: [] } }),
      expect.objectContaining({ interrupt_id: id, queue: "managers", reminder: 1 }),
      expect.objectContaining({ interrupt_id: id, action: "deny", reason: "the review expired without an answer" }),
    ]);
  });
});

describeWithCluster("review timers on three hub nodes sharing one Postgres", ({ databaseUrl, redisUrl }) => {

  it("fires an escalation once, and a reminder once, although all three nodes tick at the same moment", async () => {
    let now = Date.now();
    const schema = uniqueSchemaName("timers");
    const redisPrefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const nodes = [];
    for (let i = 0; i < 3; i++) {
      nodes.push(
        await testHub({
          assistants: testAssistants({}),
          review: { clock: () => now },
          cluster: { databaseUrl, redisUrl, schema, redisPrefix, nodeId: `node-${i}`, runLeaseMs: 1_000 },
        }),
      );
    }
    onCleanup(() => dropSchema(databaseUrl, schema));
    const [a, b, c] = nodes as [(typeof nodes)[number], (typeof nodes)[number], (typeof nodes)[number]];

    const watcher = await TestSocket.open(wsUrl(c, "/threads/t-nodes/stream/events"));
    await watcher.subscribe({ channels: ["lifecycle", "input"] });
    // A subscriber of the escalation's queue on every node.
    const queues = await Promise.all(nodes.map((n) => TestSocket.open(wsUrl(n, "/ws"))));
    for (const q of queues) expect(ok(await q.request("queue.subscribe", { queue: "managers" }))).toMatchObject({ items: 0 });
    const starter = await TestSocket.open(wsUrl(a, "/threads/t-nodes/stream/events"));
    await starter.subscribe({ channels: ["lifecycle", "input"] });
    const review = { queue: "ops", escalation: [{ after: "10m", queue: "managers" }], remind: { every: "20m", max: 1 } };
    ok(await starter.request("run.start", { assistant_id: "gate", input: { review } }));
    await starter.waitForEvent(isRootLifecycle("interrupted"));
    const id = String((starter.events.find((e) => e.method === "input.requested")?.params.data as { interrupt_id: string }).interrupt_id);

    now += 10 * MIN;
    await Promise.all(nodes.map((n) => internalsOf(n).reviews.tick()));
    await watcher.waitForEvent((e) => e.method === "input.escalated", "input.escalated on node-2");
    for (const q of queues) await q.waitForEvent((e) => e.method === "input.escalated", "input.escalated in every node's queue");

    // The reminder: every node's service ticks at once, and a node's own timer (re-armed after the
    // last tick, now due) may tick too; the store hands the reminder to one of them.
    now += 10 * MIN;
    const outcomes = await Promise.all(nodes.map((n) => internalsOf(n).reviews.service.tick(now)));
    expect(outcomes.flatMap((o) => o.timers).length).toBeLessThanOrEqual(1);
    await watcher.waitForEvent((e) => e.method === "input.reminder", "input.reminder on node-2");
    await Promise.all(nodes.map((n) => internalsOf(n).reviews.tick()));

    const view = await internalsOf(b).reviews.service.review({ sub: "audit", name: "audit", tenant: "default", roles: ["observer"] }, id);
    expect(view.ok && view.audit.map((e) => e.kind)).toEqual(["requested", "escalated", "reminded"]);
    // Answered on another node: the run resumes once; by then every event of the thread is in.
    expect(ok(await queues[1]!.request("input.respond", { namespace: [], interrupt_id: id, response: "ok" }, { thread_id: "t-nodes" }))).toMatchObject({ resumed: true });
    await watcher.waitForEvent(isRootLifecycle("completed"), "the run completed");
    expect(count(watcher.events, "input.escalated", id)).toBe(1);
    expect(count(watcher.events, "input.reminder", id)).toBe(1);
    for (const q of queues) {
      await q.waitForEvent((e) => e.method === "input.answered", "input.answered in every node's queue");
      expect(count(q.events, "input.escalated", id)).toBe(1);
      expect(count(q.events, "input.requested", id)).toBe(1);
    }
    // A fresh subscriber replays the thread's log: one escalation, one reminder.
    const late = await TestSocket.open(wsUrl(a, "/threads/t-nodes/stream/events"));
    await late.subscribe({ channels: ["lifecycle", "input"] });
    await late.waitForEvent(isRootLifecycle("completed"), "the replay");
    expect(count(late.events, "input.escalated", id)).toBe(1);
    expect(count(late.events, "input.reminder", id)).toBe(1);
  });
});
