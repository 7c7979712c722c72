/**
 * Timer tests of the review conformance suite (see review-store.ts): the
 * explicit expiry policies, escalation steps and reminders, each fired once
 * by fireDueTimers — also when three store instances (nodes) race for the
 * same due step, and when a new instance (a restarted node) takes over.
 */
import { beforeEach, expect, it } from "vitest";
import type { Principal } from "../../../../hub/auth/index.ts";
import { ReviewService } from "../../../../hub/review/index.ts";
import type { AuditEntry, FiredTimers, InterruptRequest, ReviewEvent, ReviewStore, Routing } from "../../../../hub/review/index.ts";
import { T0, alice, bob, carol, iso, manualClock, newItem } from "../../review/fixtures.ts";

const MIN = 60_000;
const kinds = (audit: AuditEntry[]) => audit.map((e) => e.kind);
const firedKinds = (fired: FiredTimers[]) => fired.map((f) => [f.item.interruptId, ...f.fired.map((t) => t.kind)]);
const boss: Principal = { sub: "boss", name: "Boss", tenant: "acme", roles: ["reviewer"] };
const manager: Principal = { sub: "mona", name: "Mona", tenant: "acme", roles: ["reviewer", "manager"] };

/** An item due at T0 + 30 min, answerable by alice, with the given timers. */
function timed(id: string, routing: Partial<Routing>, runId = "r1") {
  return newItem(id, { runId, routing: { users: ["alice"], expiresAt: iso(T0 + 30 * MIN), ...routing } });
}

const ESCALATION: Routing["escalation"] = [
  { afterMs: 10 * MIN, queue: "managers", roles: ["manager"] },
  { afterMs: 20 * MIN, users: ["boss"] },
];

export function timerTests(store: () => ReviewStore, peer: () => Promise<ReviewStore>): void {
  it("keep: the item stays pending and answerable past its deadline, noted once as overdue, and resumes nothing", async () => {
    await store().createItem(timed("k", { onExpire: { action: "keep" } }), T0);
    expect(await store().nextDeadline()).toBe(iso(T0 + 30 * MIN));
    expect(await store().fireDueTimers(T0 + 30 * MIN - 1)).toEqual([]);
    const fired = await store().fireDueTimers(T0 + 30 * MIN);
    expect(firedKinds(fired)).toEqual([["k", "overdue"]]);
    expect(fired[0]?.item).toMatchObject({ status: "open", overdueAt: iso(T0 + 30 * MIN), nextTimerAt: null });
    expect(await store().nextDeadline()).toBeNull();
    expect(await store().fireDueTimers(T0 + 60 * MIN)).toEqual([]);
    expect(await store().expireDue(T0 + 60 * MIN)).toEqual([]);
    expect(await store().takeResume("r1", "batch", T0 + 60 * MIN, "resume-1")).toBeNull();
    expect(await store().answer("k", alice, "late but fine", T0 + 61 * MIN)).toMatchObject({ ok: true, item: { status: "answered" } });
    expect(kinds(await store().auditOf("k"))).toEqual(["requested", "overdue", "answered"]);
    expect((await store().auditOf("k"))[1]?.detail).toEqual({ expiresAt: iso(T0 + 30 * MIN), action: "keep" });
  });

  it("default: the response is the answer the run resumes with; `{ response }` alone means the same", async () => {
    await store().createItem(timed("d", { onExpire: { action: "default", response: { approved: false } } }), T0);
    await store().createItem(timed("legacy", { onExpire: { response: 0 } }, "r2"), T0);
    const fired = await store().fireDueTimers(T0 + 30 * MIN);
    expect(fired.map((f) => [f.item.interruptId, f.item.status, f.fired])).toEqual([
      ["d", "expired", [{ kind: "expired", action: "default_response" }]],
      ["legacy", "expired", [{ kind: "expired", action: "default_response" }]],
    ]);
    expect(await store().takeResume("r1", "batch", T0 + 30 * MIN, "resume-1")).toMatchObject({ answers: { d: { approved: false } }, defaulted: ["d"] });
    expect(await store().takeResume("r2", "batch", T0 + 30 * MIN, "resume-2")).toMatchObject({ answers: { legacy: 0 }, defaulted: ["legacy"] });
    expect((await store().auditOf("d")).at(-1)).toMatchObject({ kind: "expired", detail: { action: "default_response", response: { approved: false } } });
  });

  it("deny: the run resumes with an explicit denial, written to the audit with its reason", async () => {
    await store().createItem(timed("n", { onExpire: { action: "deny", reason: "nobody approved the refund in time" } }), T0);
    await store().createItem(timed("n2", { onExpire: { action: "deny" } }, "r2"), T0);
    const fired = await store().fireDueTimers(T0 + 30 * MIN);
    expect(fired.map((f) => [f.item.interruptId, f.item.status, f.fired])).toEqual([
      ["n", "expired", [{ kind: "expired", action: "deny" }]],
      ["n2", "expired", [{ kind: "expired", action: "deny" }]],
    ]);
    const denial = { type: "reject", message: "nobody approved the refund in time", expired: true };
    expect(await store().takeResume("r1", "batch", T0 + 30 * MIN, "resume-1")).toMatchObject({ answers: { n: denial }, defaulted: ["n"] });
    expect(await store().takeResume("r2", "batch", T0 + 30 * MIN, "resume-2")).toMatchObject({
      answers: { n2: { type: "reject", message: "the review expired without an answer", expired: true } },
    });
    expect((await store().auditOf("n")).at(-1)).toMatchObject({ kind: "expired", detail: { action: "deny", value: denial } });
    expect(await store().answer("n", alice, "too late", T0 + 31 * MIN)).toMatchObject({ ok: false, code: "interrupt_expired" });
  });

  it("no policy: the item expires and its run stays interrupted (action none)", async () => {
    await store().createItem(timed("x", {}), T0);
    expect(firedKinds(await store().fireDueTimers(T0 + 30 * MIN))).toEqual([["x", "expired"]]);
    expect(await store().takeResume("r1", "batch", T0 + 30 * MIN, "resume-1")).toBeNull();
    expect((await store().auditOf("x")).at(-1)?.detail).toEqual({ action: "none" });
  });

  it("escalates step by step: the queue moves, candidates widen, the claim stays, each step once", async () => {
    await store().createItem(timed("e", { escalation: ESCALATION, expiresAt: null }), T0);
    expect(await store().claim("e", alice, 60 * MIN, T0 + 1)).toMatchObject({ ok: true });
    expect((await store().getItem("e"))?.nextTimerAt).toBe(iso(T0 + 10 * MIN));
    const first = await store().fireDueTimers(T0 + 10 * MIN);
    expect(first).toHaveLength(1);
    expect(first[0]?.fired).toEqual([{ kind: "escalated", step: 1, from: { queue: "default", users: ["alice"], roles: [] } }]);
    expect(first[0]?.before.routing.queue).toBe("default");
    expect(first[0]?.item).toMatchObject({
      status: "claimed",
      claim: { by: { sub: "alice" } },
      routing: { queue: "managers", users: ["alice"], roles: ["manager"] },
      escalationStep: 1,
      nextTimerAt: iso(T0 + 20 * MIN),
    });
    expect(await store().listItems({ tenant: "acme", queue: "managers" })).toHaveLength(1);
    expect(await store().listItems({ tenant: "acme", queue: "default" })).toEqual([]);
    expect(await store().fireDueTimers(T0 + 15 * MIN)).toEqual([]);
    const second = await store().fireDueTimers(T0 + 20 * MIN);
    expect(second[0]?.item).toMatchObject({ routing: { queue: "managers", users: ["alice", "boss"], roles: ["manager"] }, escalationStep: 2, nextTimerAt: null });
    expect(await store().fireDueTimers(T0 + 99 * MIN)).toEqual([]);
    const audit = await store().auditOf("e");
    expect(kinds(audit)).toEqual(["requested", "claimed", "escalated", "escalated"]);
    expect(audit[2]?.detail).toEqual({
      step: 1,
      steps: 2,
      from: { queue: "default", users: ["alice"], roles: [] },
      to: { queue: "managers", users: ["alice"], roles: ["manager"] },
    });
    // The widened candidates may answer; the claim is alice's until it lapses or she answers.
    expect(await store().answer("e", manager, "approve", T0 + 21 * MIN)).toMatchObject({ ok: false, code: "claim_held" });
    expect(await store().release("e", alice, T0 + 21 * MIN)).toMatchObject({ ok: true });
    expect(await store().answer("e", boss, "approve", T0 + 22 * MIN)).toMatchObject({ ok: true });
  });

  it("fires every step due at once (a hub that was down), in order, and stops at the deadline", async () => {
    await store().createItem(timed("late", { escalation: ESCALATION, remind: { everyMs: 4 * MIN } }), T0);
    const fired = await store().fireDueTimers(T0 + 25 * MIN);
    expect(fired[0]?.fired).toEqual([
      { kind: "escalated", step: 1, from: { queue: "default", users: ["alice"], roles: [] } },
      { kind: "escalated", step: 2, from: { queue: "managers", users: ["alice"], roles: ["manager"] } },
      { kind: "reminded", count: 1 },
    ]);
    // One reminder however many intervals passed; the next one counts from it.
    expect(fired[0]?.item).toMatchObject({ remindersSent: 1, remindedAt: iso(T0 + 25 * MIN), nextTimerAt: iso(T0 + 29 * MIN) });
    await store().createItem(timed("gone", { escalation: ESCALATION, remind: { everyMs: 4 * MIN } }), T0);
    // Past the deadline the item expires; escalations and reminders of an expired item would mean nothing.
    const expired = await store().fireDueTimers(T0 + 40 * MIN);
    expect(expired.map((f) => [f.item.interruptId, f.fired]).sort()).toEqual([
      ["gone", [{ kind: "expired", action: "none" }]],
      ["late", [{ kind: "expired", action: "none" }]],
    ]);
    expect(kinds(await store().auditOf("gone"))).toEqual(["requested", "expired"]);
  });

  it("widens nothing when everyone may already answer; escalation stops when the item is answered", async () => {
    await store().createItem(newItem("open", { routing: { escalation: [{ afterMs: MIN, queue: "backup", roles: ["manager"] }] } }), T0);
    const [fired] = await store().fireDueTimers(T0 + MIN);
    expect(fired?.item.routing).toMatchObject({ queue: "backup", users: [], roles: [] });
    await store().createItem(newItem("done", { routing: { escalation: ESCALATION, remind: { everyMs: MIN } } }), T0);
    expect(await store().answer("done", alice, "ok", T0 + 1)).toMatchObject({ ok: true });
    expect(await store().fireDueTimers(T0 + 99 * MIN)).toEqual([]);
    expect(await store().nextDeadline()).toBeNull();
  });

  it("reminds every interval up to max, then stops; a keep item past its deadline keeps being reminded", async () => {
    await store().createItem(timed("r", { remind: { everyMs: 5 * MIN, max: 2 }, expiresAt: null }), T0);
    expect(await store().fireDueTimers(T0 + 5 * MIN - 1)).toEqual([]);
    expect((await store().fireDueTimers(T0 + 5 * MIN))[0]?.fired).toEqual([{ kind: "reminded", count: 1 }]);
    expect(await store().nextDeadline()).toBe(iso(T0 + 10 * MIN));
    expect((await store().fireDueTimers(T0 + 10 * MIN))[0]?.fired).toEqual([{ kind: "reminded", count: 2 }]);
    expect(await store().nextDeadline()).toBeNull();
    expect(await store().fireDueTimers(T0 + 99 * MIN)).toEqual([]);
    expect(kinds(await store().auditOf("r"))).toEqual(["requested", "reminded", "reminded"]);
    expect((await store().auditOf("r"))[2]?.detail).toEqual({ count: 2, max: 2 });

    await store().createItem(timed("kr", { onExpire: { action: "keep" }, remind: { everyMs: 20 * MIN } }, "r2"), T0);
    expect((await store().fireDueTimers(T0 + 20 * MIN)).map((f) => f.fired)).toEqual([[{ kind: "reminded", count: 1 }]]);
    expect((await store().fireDueTimers(T0 + 30 * MIN)).map((f) => f.fired)).toEqual([[{ kind: "overdue" }]]);
    expect((await store().fireDueTimers(T0 + 40 * MIN)).map((f) => f.fired)).toEqual([[{ kind: "reminded", count: 2 }]]);
    expect(await store().getItem("kr")).toMatchObject({ status: "open", remindersSent: 2, overdueAt: iso(T0 + 30 * MIN), nextTimerAt: iso(T0 + 60 * MIN) });
  });

  it("fires a due step exactly once when three nodes claim it at the same time", async () => {
    const nodes = [store(), await peer(), await peer()];
    await store().createItem(timed("race", { escalation: ESCALATION, remind: { everyMs: 10 * MIN, max: 3 }, expiresAt: null }), T0);
    await store().createItem(timed("race2", { onExpire: { action: "deny" } }, "r2"), T0);
    for (const at of [T0 + 10 * MIN, T0 + 20 * MIN, T0 + 30 * MIN]) {
      const results = await Promise.all(nodes.map((n) => n.fireDueTimers(at)));
      const race = results.flat().filter((f) => f.item.interruptId === "race");
      expect(race).toHaveLength(1);
    }
    const race2 = (await Promise.all(nodes.map((n) => n.fireDueTimers(T0 + 31 * MIN)))).flat();
    expect(race2).toHaveLength(0); // fired with the 30-minute round above, by one of the nodes
    const audit = await store().auditOf("race");
    expect(kinds(audit)).toEqual(["requested", "escalated", "reminded", "escalated", "reminded", "reminded"]);
    expect(kinds(await store().auditOf("race2"))).toEqual(["requested", "expired"]);
    const takes = await Promise.all(nodes.map((n, i) => n.takeResume("r2", "batch", T0 + 31 * MIN, `resume-${i}`)));
    expect(takes.filter((t) => t !== null)).toHaveLength(1);
  });

  it("continues from the stored step in a new store instance (a restarted node)", async () => {
    await store().createItem(timed("persist", { escalation: ESCALATION, remind: { everyMs: 8 * MIN, max: 2 }, expiresAt: null }), T0);
    expect(firedKinds(await store().fireDueTimers(T0 + 10 * MIN))).toEqual([["persist", "escalated", "reminded"]]);
    const restarted = await peer();
    const item = await restarted.getItem("persist");
    expect(item).toMatchObject({ escalationStep: 1, remindersSent: 1, remindedAt: iso(T0 + 10 * MIN), nextTimerAt: iso(T0 + 18 * MIN) });
    expect(await restarted.nextDeadline()).toBe(iso(T0 + 18 * MIN));
    expect(await restarted.fireDueTimers(T0 + 17 * MIN)).toEqual([]);
    expect((await restarted.fireDueTimers(T0 + 18 * MIN))[0]?.fired).toEqual([{ kind: "reminded", count: 2 }]);
    expect((await restarted.fireDueTimers(T0 + 20 * MIN))[0]?.fired).toEqual([{ kind: "escalated", step: 2, from: { queue: "managers", users: ["alice"], roles: ["manager"] } }]);
    expect(await restarted.nextDeadline()).toBeNull();
    expect(kinds(await store().auditOf("persist"))).toEqual(["requested", "escalated", "reminded", "reminded", "escalated"]);
  });

  serviceTimerTests(store);
}

function request(interruptId: string, review: unknown, overrides: Partial<InterruptRequest> = {}): InterruptRequest {
  return { interruptId, threadId: "t1", runId: "r1", tenant: "acme", namespace: [], node: "review", payload: { kind: "refund", review }, startedBy: "sam", ...overrides };
}

/** The service on top: routing of the fields, and the events each timer sends (thread log and queues). */
function serviceTimerTests(store: () => ReviewStore): void {
  let clock: ReturnType<typeof manualClock>;
  let events: ReviewEvent[];
  beforeEach(() => {
    clock = manualClock();
    events = [];
  });
  const service = () => new ReviewService({ store: store(), routing: { queue: "default" }, clock: clock.now, onEvent: (e) => events.push(e) });

  it("announces escalations with the routing before and after, reminders, and a denial with its reason", async () => {
    const reviews = service();
    const review = {
      users: ["carol"],
      expiresIn: "1h",
      onExpire: { action: "deny", reason: "no approval within the hour" },
      escalation: [{ after: "40m", users: ["boss"] }, { after: "20m", queue: "managers", roles: ["manager"] }],
      remind: { every: "30m", max: 1 },
    };
    const { item, issues } = await reviews.onInterruptRequested(request("i1", review));
    expect(issues).toEqual([]);
    // Steps sort by `after`.
    expect(item.routing.escalation).toEqual([
      { afterMs: 20 * MIN, queue: "managers", roles: ["manager"] },
      { afterMs: 40 * MIN, users: ["boss"] },
    ]);
    expect(item.routing.remind).toEqual({ everyMs: 30 * MIN, max: 1 });
    expect(await reviews.nextDeadline()).toBe(T0 + 20 * MIN);
    events = [];

    clock.set(T0 + 20 * MIN);
    await reviews.tick();
    expect(events).toHaveLength(1);
    const escalated = events[0]!;
    expect(escalated.audience).toBe("all");
    expect(escalated.before?.routing).toMatchObject({ queue: "default", users: ["carol"], roles: [] });
    expect(escalated.item.routing).toMatchObject({ queue: "managers", users: ["carol"], roles: ["manager"] });
    expect(escalated.event).toEqual({
      type: "event",
      thread_id: "t1",
      run_id: "r1",
      method: "input.escalated",
      params: {
        namespace: [],
        node: "review",
        timestamp: T0 + 20 * MIN,
        data: {
          interrupt_id: "i1",
          step: 1,
          steps: 2,
          queue: "managers",
          users: ["carol"],
          roles: ["manager"],
          from: { queue: "default", users: ["carol"], roles: [] },
          escalated_at: T0 + 20 * MIN,
        },
      },
    });

    clock.set(T0 + 30 * MIN);
    await reviews.tick();
    expect(events.at(-1)?.event).toMatchObject({
      method: "input.reminder",
      params: { data: { interrupt_id: "i1", reminder: 1, max: 1, reminded_at: T0 + 30 * MIN, expires_at: T0 + 60 * MIN, overdue: false } },
    });
    expect(events.at(-1)?.before).toBeUndefined();

    clock.set(T0 + 40 * MIN);
    await reviews.tick();
    clock.set(T0 + 60 * MIN);
    const { expired, resumes } = await reviews.tick();
    expect(events.map((e) => e.event.method)).toEqual(["input.escalated", "input.reminder", "input.escalated", "input.expired"]);
    expect(events[2]?.before?.routing.queue).toBe("managers");
    expect(events[3]?.event).toMatchObject({
      method: "input.expired",
      params: { data: { interrupt_id: "i1", expired_at: T0 + 60 * MIN, action: "deny", reason: "no approval within the hour" } },
    });
    expect(expired.map((e) => e.action)).toEqual(["deny"]);
    expect(resumes).toEqual([
      {
        runId: "r1",
        resumeRunId: expect.any(String),
        threadId: "t1",
        tenant: "acme",
        answers: { i1: { type: "reject", message: "no approval within the hour", expired: true } },
        defaulted: ["i1"],
        edits: {},
        startedBy: "sam",
      },
    ]);
  });

  it("applies the hub's default policy unless the item names its own; refuses bad timer fields one by one", async () => {
    const reviews = new ReviewService({ store: store(), routing: { queue: "default", onExpire: { action: "keep" } }, clock: clock.now });
    const plain = await reviews.onInterruptRequested(request("plain", { expiresIn: "1m" }));
    expect(plain.item.routing.onExpire).toEqual({ action: "keep" });
    const own = await reviews.onInterruptRequested(request("own", { expiresIn: "1m", onExpire: { action: "default", response: "no" } }));
    expect(own.item.routing.onExpire).toEqual({ action: "default", response: "no" });
    const bad = await reviews.onInterruptRequested(
      request("bad", {
        onExpire: { action: "maybe" },
        escalation: [{ after: "10m" }],
        remind: { every: "10ms" },
        users: ["carol"],
      }),
    );
    expect(bad.issues.map((i) => i.path)).toEqual(["review.onExpire", "review.escalation", "review.remind"]);
    // The bad fields are ignored, the good ones apply; the hub's policy stands in for the bad one.
    expect(bad.item.routing).toMatchObject({ users: ["carol"], onExpire: { action: "keep" } });
    expect(bad.item.routing.escalation).toBeUndefined();
    expect(bad.item.routing.remind).toBeUndefined();
    clock.set(T0 + MIN);
    const { expired } = await reviews.tick();
    expect(expired.map((e) => e.item.interruptId)).toEqual(["own"]);
    expect(await reviews.answer(carol, "plain", "late")).toMatchObject({ result: { ok: true } });
    expect(await reviews.answer(bob, "bad", "late")).toMatchObject({ result: { ok: false, code: "permission_denied" } });
  });
}
