/** ReviewService tests of the review conformance suite (see conformance.ts): events, resumes, ticks, views. */
import { beforeEach, expect, it } from "vitest";
import type { Principal } from "../../../../hub/auth/index.ts";
import { ReviewService } from "../../../../hub/review/index.ts";
import type { InterruptRequest, ResumePolicy, ReviewEvent, ReviewServiceOptions, ReviewStore } from "../../../../hub/review/index.ts";
import { T0, alice, bob, carol, eve, iso, manualClock, olga, rita, sam } from "../../review/fixtures.ts";

function request(interruptId: string, payload: unknown = { kind: "review" }, overrides: Partial<InterruptRequest> = {}): InterruptRequest {
  return { interruptId, threadId: "t1", runId: "r1", tenant: "acme", namespace: ["branch:1"], node: "review", payload, startedBy: "sam", ...overrides };
}

export function serviceTests(store: () => ReviewStore): void {
  let clock: ReturnType<typeof manualClock>;
  let events: ReviewEvent[];
  let logs: string[];
  let policy: ResumePolicy;

  const service = (options: Partial<ReviewServiceOptions> = {}) =>
    new ReviewService({
      store: store(),
      routing: { queue: "default" },
      clock: clock.now,
      onEvent: (e) => events.push(e),
      resumePolicy: () => policy,
      logger: { warn: (m) => logs.push(`warn: ${m}`), error: (m) => logs.push(`error: ${m}`) },
      ...options,
    });
  const methods = () => events.map((e) => e.event.method);

  beforeEach(() => {
    clock = manualClock();
    events = [];
    logs = [];
    policy = "batch";
  });

  it("routes a new interrupt, tells queue subscribers once, and logs a bad review field", async () => {
    const reviews = service();
    const first = await reviews.onInterruptRequested(request("i1", { review: { queue: "legal", expiresIn: "later" } }));
    expect(first.created).toBe(true);
    expect(first.item).toMatchObject({ interruptId: "i1", status: "open", routing: { queue: "legal", expiresAt: null } });
    expect(first.issues.map((i) => i.path)).toEqual(["review.expiresIn"]);
    expect(logs).toEqual([expect.stringMatching(/^warn: review routing of interrupt i1: review\.expiresIn: /)]);
    expect(events).toEqual([
      {
        item: first.item,
        audience: "queue",
        event: {
          type: "event",
          thread_id: "t1",
          run_id: "r1",
          method: "input.requested",
          params: { namespace: ["branch:1"], node: "review", timestamp: T0, data: { interrupt_id: "i1", payload: { review: { queue: "legal", expiresIn: "later" } }, payload_digest: first.item.payloadDigest } },
        },
      },
    ]);
    const again = await reviews.onInterruptRequested(request("i1", { review: { queue: "legal", expiresIn: "later" } }));
    expect(again.created).toBe(false);
    expect(events).toHaveLength(1);
    // Raised again with another payload: a new revision, and queues get it again with its new digest.
    const reraised = await reviews.onInterruptRequested(request("i1", { review: { queue: "legal" }, draft: "changed" }));
    expect(reraised.item).toMatchObject({ revision: 1, payload: { draft: "changed" } });
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ audience: "queue", event: { method: "input.requested", params: { data: { payload_digest: reraised.item.payloadDigest } } } });
  });

  it("50 concurrent answers: one success, 49 already_answered naming the winner, one input.answered, one resume", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("race"));
    events.length = 0;
    const reviewers: Principal[] = Array.from({ length: 50 }, (_, i) => ({ sub: `rev-${i}`, name: `Reviewer ${i}`, tenant: "acme", roles: ["reviewer"] }));
    clock.advance(5);
    const outcomes = await Promise.all(reviewers.map((p, i) => reviews.answer(p, "race", { approve: i % 2 === 0 })));
    const won = outcomes.filter((o) => o.result.ok);
    expect(won).toHaveLength(1);
    const winner = won[0]!.result.ok ? won[0]!.result.item.answer?.by : undefined;
    const lost = outcomes.filter((o) => !o.result.ok);
    expect(lost).toHaveLength(49);
    for (const o of lost) expect(o.result).toMatchObject({ code: "already_answered", winner, answeredAt: iso(T0 + 5) });
    expect(events.map((e) => e.event)).toEqual([
      {
        type: "event",
        thread_id: "t1",
        run_id: "r1",
        method: "input.answered",
        // The root namespace, as the spec sends it: clients match by interrupt id.
        params: { namespace: [], timestamp: T0 + 5, data: { interrupt_ids: ["race"], answered_by: winner, answered_at: T0 + 5 } },
      },
    ]);
    const resumes = outcomes.flatMap((o) => (o.resume === null ? [] : [o.resume]));
    expect(resumes).toHaveLength(1);
    expect(resumes[0]?.answers).toEqual({ race: won[0]!.result.ok ? won[0]!.result.item.answer?.value : undefined });
  });

  it.each(["batch", "eager"] as const)("fans out three parallel interrupts to three reviewers (%s)", async (mode) => {
    policy = mode;
    const reviews = service();
    await reviews.onInterruptRequested(request("a", { review: { users: ["alice"] } }));
    await reviews.onInterruptRequested(request("b", { review: { users: ["bob"] } }));
    await reviews.onInterruptRequested(request("c", { review: { roles: ["legal"] } }));
    const order: Array<[Principal, string]> = [[carol, "c"], [alice, "a"], [bob, "b"]];
    const resumes = [];
    for (const [who, id] of order) {
      clock.advance(1);
      const { result, resume } = await reviews.answer(who, id, `${id}!`);
      expect(result.ok).toBe(true);
      resumes.push(resume?.answers ?? null);
    }
    if (mode === "batch") expect(resumes).toEqual([null, null, { a: "a!", b: "b!", c: "c!" }]);
    else expect(resumes).toEqual([{ c: "c!" }, { a: "a!" }, { b: "b!" }]);
    expect(await reviews.allSettled({ runId: "r1", tenant: "acme" })).toBe(true);
  });

  it("answers a batch with one resume per run, even when eager, and refuses duplicates", async () => {
    policy = "eager";
    const reviews = service();
    await reviews.onInterruptRequested(request("a"));
    await reviews.onInterruptRequested(request("b"));
    await reviews.onInterruptRequested(request("c", {}, { runId: "r2", threadId: "t2" }));
    const outcome = await reviews.answerBatch(alice, [
      { interruptId: "a", value: 1 },
      { interruptId: "a", value: 2 },
      { interruptId: "b", value: 3 },
      { interruptId: "zzz", value: 4 },
      { interruptId: "c", value: 5 },
    ]);
    expect(outcome.results.map((r) => (r.result.ok ? "ok" : r.result.code))).toEqual(["ok", "invalid_argument", "ok", "unknown_interrupt", "ok"]);
    expect(outcome.resumes.map((r) => [r.runId, r.answers])).toEqual([
      ["r1", { a: 1, b: 3 }],
      ["r2", { c: 5 }],
    ]);
    expect(methods().filter((m) => m === "input.answered")).toHaveLength(3);
  });

  it("refuses non-candidates, observers, other tenants and self-approvers; the item stays open", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("i1", { review: { users: ["alice"] } }));
    for (const p of [bob, olga, eve, { ...sam, roles: ["reviewer"] }]) {
      const { result, resume } = await reviews.answer(p, "i1", "yes");
      expect(result).toMatchObject({ ok: false, code: "permission_denied" });
      expect(resume).toBeNull();
    }
    expect(await reviews.pendingForRun({ runId: "r1", tenant: "acme" })).toEqual([expect.objectContaining({ interruptId: "i1", status: "open" })]);
    expect(methods()).toEqual(["input.requested"]);
  });

  it("emits input.claimed and input.released, and frees a lapsed claim on tick", async () => {
    const reviews = service({ claimTtlMs: 30_000 });
    await reviews.onInterruptRequested(request("i1"));
    const claimed = await reviews.claim(alice, "i1");
    expect(claimed.ok && claimed.item.claim?.until).toBe(iso(T0 + 30_000));
    expect(events.at(-1)?.event).toEqual({
      type: "event",
      thread_id: "t1",
      run_id: "r1",
      method: "input.claimed",
      params: { namespace: ["branch:1"], node: "review", timestamp: T0, data: { interrupt_id: "i1", claimed_by: { sub: "alice", name: "Alice" }, expires_at: T0 + 30_000 } },
    });
    expect((await reviews.answer(bob, "i1", "x")).result).toMatchObject({ code: "claim_held", claimedBy: { sub: "alice" } });
    clock.advance(1_000);
    expect(await reviews.release(alice, "i1")).toMatchObject({ ok: true, changed: true });
    expect(events.at(-1)?.event.params.data).toEqual({ interrupt_id: "i1", released_by: { sub: "alice", name: "Alice" } });
    expect(await reviews.release(alice, "i1")).toMatchObject({ ok: true, changed: false });
    expect(methods()).toEqual(["input.requested", "input.claimed", "input.released"]);

    await reviews.claim(bob, "i1", 5_000);
    expect(await reviews.nextDeadline()).toBe(T0 + 6_000);
    clock.advance(4_999);
    expect((await reviews.tick()).claimsLapsed).toEqual([]);
    clock.advance(1);
    const { claimsLapsed } = await reviews.tick();
    expect(claimsLapsed.map((c) => [c.item.interruptId, c.holder.sub])).toEqual([["i1", "bob"]]);
    expect(events.at(-1)?.event).toMatchObject({ method: "input.released", params: { data: { interrupt_id: "i1", released_by: { sub: "bob", name: "Bob" } } } });
    expect((await reviews.answer(alice, "i1", "now")).result.ok).toBe(true);
  });

  it("expires items on tick: a default response resumes the run, none leaves it to the hub", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("dflt", { review: { expiresIn: "1m", onExpire: { response: { approved: false } } } }));
    await reviews.onInterruptRequested(request("none", { review: { expiresIn: "2m" } }, { runId: "r2" }));
    expect(await reviews.nextDeadline()).toBe(T0 + 60_000);
    clock.advance(59_999);
    expect(await reviews.tick()).toEqual({ expired: [], timers: [], claimsLapsed: [], resumes: [] });
    clock.advance(1);
    const first = await reviews.tick();
    expect(first.expired.map((e) => [e.item.interruptId, e.action])).toEqual([["dflt", "default_response"]]);
    expect(first.resumes).toEqual([
      { runId: "r1", resumeRunId: expect.any(String), threadId: "t1", tenant: "acme", answers: { dflt: { approved: false } }, defaulted: ["dflt"], edits: {}, startedBy: "sam" },
    ]);
    expect(events.at(-1)?.event).toMatchObject({ method: "input.expired", params: { data: { interrupt_id: "dflt", expired_at: T0 + 60_000, action: "default_response" } } });
    clock.advance(60_000);
    const second = await reviews.tick();
    expect(second.expired.map((e) => [e.item.interruptId, e.action])).toEqual([["none", "none"]]);
    expect(second.resumes).toEqual([]);
    expect((await reviews.answer(alice, "none", 1)).result).toMatchObject({ code: "interrupt_expired" });
    const view = await reviews.review(olga, "dflt");
    expect(view.ok && view.audit.map((e) => e.kind)).toEqual(["requested", "expired"]);
    expect(view.ok && view.audit[1]?.detail).toEqual({ action: "default_response", response: { approved: false } });
  });

  it("resumes a batch once the last pending item expires without default", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("a"));
    await reviews.onInterruptRequested(request("b", { review: { expiresIn: 1_000 } }));
    expect((await reviews.answer(alice, "a", "yes")).resume).toBeNull();
    clock.advance(1_000);
    expect((await reviews.tick()).resumes.map((r) => r.answers)).toEqual([{ a: "yes" }]);
  });

  it("cancels a run's items when the run ends", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("a"));
    await reviews.onInterruptRequested(request("b"));
    await reviews.answer(alice, "a", 1);
    const cancelled = await reviews.cancelForRun("r1", "run_cancelled");
    expect(cancelled.map((i) => i.interruptId)).toEqual(["b"]);
    expect((await reviews.answer(alice, "b", 1)).result).toMatchObject({ code: "interrupt_cancelled" });
    expect(await reviews.allSettled({ runId: "r1", tenant: "acme" })).toBe(true);
    expect(await reviews.cancelForThread("t1")).toEqual([]);
  });

  it("shows a queue only to those who may answer its items", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("any", { review: { queue: "q" } }));
    await reviews.onInterruptRequested(request("legal", { review: { queue: "q", roles: ["legal"] } }));
    await reviews.onInterruptRequested(request("mine", { review: { queue: "q", users: ["alice"] } }));
    await reviews.onInterruptRequested(request("other", { review: { queue: "elsewhere" } }));
    await reviews.onInterruptRequested(request("due", { review: { queue: "q", expiresIn: 10 } }));
    await reviews.onInterruptRequested(request("globex", { review: { queue: "q" } }, { tenant: "globex" }));
    await reviews.onInterruptRequested(request("done", { review: { queue: "q" } }));
    await reviews.answer(bob, "done", 1);
    await reviews.claim(bob, "any");
    clock.advance(10);
    const ids = async (p: Principal) => (await reviews.openItemsFor(p, "q")).map((i) => i.interruptId);
    expect(await ids(alice)).toEqual(["any", "mine"]);
    expect(await ids(carol)).toEqual(["any", "legal"]);
    expect(await ids(rita)).toEqual(["any"]);
    expect(await ids(sam)).toEqual([]);
    expect(await ids(olga)).toEqual([]);
    // Tenants are isolated both ways.
    expect(await ids(eve)).toEqual(["globex"]);
  });

  it("shows one item with its audit to those allowed; another tenant sees nothing", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("i1", { review: { users: ["alice"] } }));
    await reviews.answer(alice, "i1", "ok");
    const seen = await reviews.review(alice, "i1");
    expect(seen.ok && seen.audit.map((e) => e.kind)).toEqual(["requested", "answered"]);
    expect(await reviews.review(bob, "i1")).toMatchObject({ code: "permission_denied" });
    expect(await reviews.review(eve, "i1")).toMatchObject({ code: "unknown_interrupt" });
    expect(await reviews.review(alice, "nope")).toMatchObject({ code: "unknown_interrupt" });
  });

  it("keeps a decision when the event callback throws, and logs it", async () => {
    const reviews = service({
      onEvent: () => {
        throw new Error("socket gone");
      },
    });
    await reviews.onInterruptRequested(request("i1"));
    expect((await reviews.answer(alice, "i1", "yes")).result.ok).toBe(true);
    expect(logs).toEqual([
      "error: review event input.requested for i1 failed: socket gone",
      "error: review event input.answered for i1 failed: socket gone",
    ]);
    expect((await store().getItem("i1"))?.status).toBe("answered");
  });
}
