/** Store tests of the review conformance suite (see conformance.ts): decisions, claims, expiry, audit. */
import { expect, it } from "vitest";
import type { Principal } from "../../../../hub/auth/index.ts";
import type { AuditEntry, Decision, ReviewStore } from "../../../../hub/review/index.ts";
import { payloadDigest } from "../../../../hub/review/quorum.ts";
import { T0, alice, bob, carol, eve, iso, newItem, olga, rita, sam } from "../../review/fixtures.ts";

function reviewer(i: number): Principal {
  return { sub: `rev-${i}`, name: `Reviewer ${i}`, tenant: "acme", roles: ["reviewer"] };
}

const kinds = (audit: AuditEntry[]) => audit.map((e) => e.kind);

function refusalOf(decision: Decision) {
  if (decision.ok) throw new Error(`expected a refusal, got ${JSON.stringify(decision)}`);
  return decision;
}

export function storeTests(store: () => ReviewStore): void {
  it("creates an open item with a requested audit entry, idempotently on the interrupt id", async () => {
    const first = await store().createItem(newItem("i1", { namespace: ["sub:1"], routing: { queue: "legal", expiresAt: iso(T0 + 60_000) } }), T0);
    expect(first.created).toBe(true);
    expect(first.item).toEqual({
      ...newItem("i1", { namespace: ["sub:1"], routing: { queue: "legal", expiresAt: iso(T0 + 60_000) } }),
      status: "open",
      claim: null,
      answer: null,
      createdAt: iso(T0),
      expiresAt: iso(T0 + 60_000),
      resumedAt: null,
      resumeRunId: null,
      appliedAt: null,
      votes: [],
      stage: 0,
      revision: 0,
      payloadDigest: payloadDigest({ kind: "review", draft: "Hello" }, 0),
      escalationStep: 0,
      remindersSent: 0,
      remindedAt: null,
      overdueAt: null,
      nextTimerAt: iso(T0 + 60_000),
    });
    // The same question raised again (a resume run re-asking it) changes nothing; another payload would be a revision (review-store-workflows.ts).
    const again = await store().createItem(newItem("i1", { runId: "r9", node: "elsewhere" }), T0 + 5);
    expect(again).toEqual({ item: first.item, created: false });
    expect(await store().getItem("i1")).toEqual(first.item);
    expect(await store().auditOf("i1")).toEqual([
      {
        interruptId: "i1",
        at: iso(T0),
        kind: "requested",
        detail: { queue: "legal", users: [], roles: [], expiresAt: iso(T0 + 60_000), hasDefault: false },
      },
    ]);
  });

  it("normalizes deadlines to one ISO form", async () => {
    const { item } = await store().createItem(newItem("i1", { routing: { expiresAt: "2030-01-01T01:00:00Z" } }), T0);
    expect(item.expiresAt).toBe("2030-01-01T01:00:00.000Z");
    expect(item.routing.expiresAt).toBe("2030-01-01T01:00:00.000Z");
  });

  it("lists by tenant, queue, status, thread and run, oldest first", async () => {
    await store().createItem(newItem("a", { routing: { queue: "q1" } }), T0);
    await store().createItem(newItem("b", { routing: { queue: "q2" }, threadId: "t2", runId: "r2" }), T0 + 1);
    await store().createItem(newItem("c", { routing: { queue: "q1" }, tenant: "globex" }), T0 + 2);
    await store().createItem(newItem("d", { routing: { queue: "q1" } }), T0 + 3);
    await store().answer("d", alice, "ok", T0 + 4);
    const ids = async (filter: Parameters<ReviewStore["listItems"]>[0]) => (await store().listItems(filter)).map((i) => i.interruptId);
    expect(await ids({ tenant: "acme" })).toEqual(["a", "b", "d"]);
    expect(await ids({ tenant: "globex" })).toEqual(["c"]);
    expect(await ids({ tenant: "acme", queue: "q1" })).toEqual(["a", "d"]);
    expect(await ids({ tenant: "acme", status: "open" })).toEqual(["a", "b"]);
    expect(await ids({ tenant: "acme", status: ["answered", "expired"] })).toEqual(["d"]);
    expect(await ids({ tenant: "acme", status: [] })).toEqual([]);
    expect(await ids({ tenant: "acme", threadId: "t2" })).toEqual(["b"]);
    expect(await ids({ tenant: "acme", runId: "r1", queue: "q1", status: "open" })).toEqual(["a"]);
    expect(await ids({ tenant: "nobody" })).toEqual([]);
  });

  it("round-trips falsy and unicode payloads and answers, and hands out copies", async () => {
    const payload = { zero: 0, empty: "", no: false, nothing: null, list: [], text: "✓ 値 مرحبا 🚀" };
    const { item } = await store().createItem(newItem("i1", { payload, node: null }), T0);
    expect(item.payload).toEqual(payload);
    expect(item.node).toBeNull();
    item.routing.users.push("mallory");
    (item.payload as Record<string, unknown>)["zero"] = 1;
    expect((await store().getItem("i1"))?.routing.users).toEqual([]);
    expect((await store().getItem("i1"))?.payload).toEqual(payload);
    for (const [i, value] of [0, "", false, null, { "キー": ["✓"] }].entries()) {
      await store().createItem(newItem(`v${i}`), T0);
      const result = await store().answer(`v${i}`, alice, value, T0);
      expect(result.ok && result.item.answer?.value).toEqual(value);
      expect((await store().getItem(`v${i}`))?.answer).toEqual({ value, by: { sub: "alice", name: "Alice" }, at: iso(T0) });
    }
    // undefined has no JSON form: stored as null
    await store().createItem(newItem("u"), T0);
    await store().answer("u", alice, undefined, T0);
    expect((await store().getItem("u"))?.answer?.value).toBeNull();
  });

  it("accepts the first answer and records who and when", async () => {
    await store().createItem(newItem("i1"), T0);
    const result = await store().answer("i1", alice, { ok: true }, T0 + 10);
    expect(result).toEqual({
      ok: true,
      changed: true,
      item: expect.objectContaining({ status: "answered", answer: { value: { ok: true }, by: { sub: "alice", name: "Alice" }, at: iso(T0 + 10) } }),
    });
    expect(await store().getItem("i1")).toEqual(result.ok && result.item);
    const audit = await store().auditOf("i1");
    expect(audit[1]).toEqual({ interruptId: "i1", at: iso(T0 + 10), kind: "answered", by: { sub: "alice", name: "Alice" }, detail: { value: { ok: true } } });
  });

  it("lets exactly one of 50 concurrent answers win; the 49 others learn who won and when", async () => {
    await store().createItem(newItem("race"), T0);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store().answer("race", reviewer(i), { from: i }, T0 + 1)));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const stored = await store().getItem("race");
    const winner = stored?.answer?.by;
    expect(winner).toBeDefined();
    const losers = results.filter((r) => !r.ok);
    expect(losers).toHaveLength(49);
    for (const loser of losers) {
      expect(loser).toMatchObject({ ok: false, code: "already_answered", winner, answeredAt: iso(T0 + 1) });
    }
    expect(stored?.answer?.value).toEqual({ from: Number(winner?.sub.slice(4)) });
    const audit = await store().auditOf("race");
    expect(kinds(audit)).toEqual(["requested", "answered", ...Array<string>(49).fill("rejected")]);
    expect(audit.slice(2).every((e) => e.reason === "already_answered")).toBe(true);
  });

  it.each([
    ["a non-candidate", bob, { users: ["alice"] }],
    ["an observer", olga, {}],
    ["another tenant", eve, {}],
    ["the run's starter", sam, {}],
  ])("refuses %s with permission_denied and leaves the item open", async (_, principal, routing) => {
    const { item } = await store().createItem(newItem("i1", { routing }), T0);
    const refusal = refusalOf(await store().answer("i1", principal, "approve", T0 + 1));
    expect(refusal.code).toBe("permission_denied");
    expect(await store().getItem("i1")).toEqual(item);
    const audit = await store().auditOf("i1");
    if (principal.tenant !== item.tenant) {
      // Another tenant's attempt does not reach (nor grow) this tenant's trail.
      expect(kinds(audit)).toEqual(["requested"]);
    } else {
      expect(audit.at(-1)).toEqual({
        interruptId: "i1",
        at: iso(T0 + 1),
        kind: "rejected",
        by: { sub: principal.sub, name: principal.name },
        reason: "permission_denied",
        detail: { message: refusal.message },
      });
    }
    // and the item can still be answered by a candidate
    expect((await store().answer("i1", alice, "approve", T0 + 2)).ok).toBe(true);
  });

  it("rejects an answer that fails the responseSchema and changes nothing but the audit", async () => {
    const responseSchema = { type: "object", required: ["decision"], properties: { decision: { enum: ["approve", "reject"] } } };
    const { item } = await store().createItem(newItem("i1", { routing: { responseSchema } }), T0);
    await store().claim("i1", alice, 60_000, T0);
    const claimed = await store().getItem("i1");
    const refusal = refusalOf(await store().answer("i1", alice, { decision: "maybe" }, T0 + 1));
    expect(refusal).toEqual({
      ok: false,
      code: "invalid_argument",
      message: `the response does not match the review's responseSchema: #/decision: Instance does not match any of ["approve","reject"].`,
    });
    expect(await store().getItem("i1")).toEqual(claimed);
    expect(kinds(await store().auditOf("i1"))).toEqual(["requested", "claimed", "rejected"]);
    expect((await store().answer("i1", alice, { decision: "reject" }, T0 + 2)).ok).toBe(true);
    expect(item.routing.responseSchema).toEqual(responseSchema);
  });

  it("refuses unknown, expired and cancelled interrupts with their own codes", async () => {
    expect(await store().answer("nope", alice, 1, T0)).toMatchObject({ ok: false, code: "unknown_interrupt" });
    expect(await store().auditOf("nope")).toEqual([]);
    await store().createItem(newItem("late", { routing: { expiresAt: iso(T0 + 100) } }), T0);
    // due but not yet swept: refused all the same
    expect(await store().answer("late", alice, 1, T0 + 100)).toMatchObject({ code: "interrupt_expired" });
    await store().expireDue(T0 + 100);
    expect(await store().answer("late", alice, 1, T0 + 101)).toMatchObject({ code: "interrupt_expired" });
    await store().createItem(newItem("gone", { runId: "r2" }), T0);
    await store().cancelForRun("r2", T0 + 1);
    expect(await store().answer("gone", alice, 1, T0 + 2)).toMatchObject({ code: "interrupt_cancelled" });
    expect((await store().getItem("gone"))?.status).toBe("cancelled");
  });

  it("leases claims: renew by the holder, claim_held for others, answer by the holder or an overrider", async () => {
    await store().createItem(newItem("i1"), T0);
    const claimed = await store().claim("i1", alice, 60_000, T0);
    expect(claimed).toMatchObject({ ok: true, item: { status: "claimed", claim: { by: { sub: "alice", name: "Alice" }, until: iso(T0 + 60_000) } } });
    expect(await store().claim("i1", bob, 60_000, T0 + 1)).toMatchObject({ code: "claim_held", claimedBy: { sub: "alice" }, until: iso(T0 + 60_000) });
    expect(await store().answer("i1", bob, "x", T0 + 1)).toMatchObject({ code: "claim_held" });
    expect(await store().claim("i1", alice, 0, T0 + 1)).toMatchObject({ code: "invalid_argument" });
    const renewed = await store().claim("i1", alice, 120_000, T0 + 2);
    expect(renewed.ok && renewed.item.claim?.until).toBe(iso(T0 + 120_002));
    const overridden = await store().answer("i1", rita, "ship it", T0 + 3);
    expect(overridden).toMatchObject({ ok: true, item: { status: "answered", claim: null } });
    const audit = await store().auditOf("i1");
    expect(kinds(audit)).toEqual(["requested", "claimed", "rejected", "claimed", "answered"]);
    expect(audit[1]?.detail).toEqual({ until: iso(T0 + 60_000), renewed: false });
    expect(audit[3]?.detail).toEqual({ until: iso(T0 + 120_002), renewed: true });
    expect(audit[4]?.detail).toEqual({ value: "ship it", overrodeClaimOf: { sub: "alice", name: "Alice" } });
  });

  it("releases: the holder or an overrider; a second release is a no-op", async () => {
    await store().createItem(newItem("i1"), T0);
    await store().claim("i1", alice, 60_000, T0);
    expect(await store().release("i1", bob, T0 + 1)).toMatchObject({ code: "permission_denied" });
    const released = await store().release("i1", alice, T0 + 2);
    expect(released).toMatchObject({ ok: true, changed: true, item: { status: "open", claim: null } });
    expect(await store().release("i1", alice, T0 + 3)).toMatchObject({ ok: true, changed: false, item: { status: "open" } });
    await store().claim("i1", carol, 60_000, T0 + 4);
    expect(await store().release("i1", rita, T0 + 5)).toMatchObject({ ok: true, changed: true });
    const audit = await store().auditOf("i1");
    expect(kinds(audit)).toEqual(["requested", "claimed", "released", "claimed", "released"]);
    expect(audit[4]).toMatchObject({ by: { sub: "rita" }, detail: { holder: { sub: "carol", name: "Carol" } } });
  });

  it("expires a claim's lease and opens the item again, naming the holder", async () => {
    await store().createItem(newItem("i1"), T0);
    await store().claim("i1", alice, 1_000, T0);
    expect(await store().nextDeadline()).toBe(iso(T0 + 1_000));
    expect(await store().expireClaims(T0 + 999)).toEqual([]);
    const lapsed = await store().expireClaims(T0 + 1_000);
    expect(lapsed).toEqual([{ item: expect.objectContaining({ interruptId: "i1", status: "open", claim: null }), holder: { sub: "alice", name: "Alice" }, until: iso(T0 + 1_000) }]);
    expect(await store().expireClaims(T0 + 2_000)).toEqual([]);
    expect(await store().nextDeadline()).toBeNull();
    expect((await store().claim("i1", bob, 1_000, T0 + 1_001)).ok).toBe(true);
    expect(kinds(await store().auditOf("i1"))).toEqual(["requested", "claimed", "claim_expired", "claimed"]);
    expect((await store().auditOf("i1"))[2]).toEqual({
      interruptId: "i1",
      at: iso(T0 + 1_000),
      kind: "claim_expired",
      by: { sub: "alice", name: "Alice" },
      detail: { until: iso(T0 + 1_000) },
    });
  });

  it("expires due items with and without a default response", async () => {
    await store().createItem(newItem("plain", { routing: { expiresAt: iso(T0 + 1_000) } }), T0);
    await store().createItem(newItem("dflt", { routing: { expiresAt: iso(T0 + 2_000), onExpire: { response: false } } }), T0);
    await store().createItem(newItem("never"), T0);
    await store().createItem(newItem("done", { routing: { expiresAt: iso(T0 + 1_000) } }), T0);
    await store().answer("done", alice, "x", T0 + 1);
    await store().claim("dflt", bob, 60_000, T0 + 2);
    expect(await store().nextDeadline()).toBe(iso(T0 + 1_000));
    expect(await store().expireDue(T0 + 999)).toEqual([]);
    const first = await store().expireDue(T0 + 1_500);
    expect(first).toEqual([{ item: expect.objectContaining({ interruptId: "plain", status: "expired" }), action: "none" }]);
    const second = await store().expireDue(T0 + 2_000);
    expect(second).toEqual([{ item: expect.objectContaining({ interruptId: "dflt", status: "expired", claim: null }), action: "default_response" }]);
    expect(await store().expireDue(T0 + 99_000)).toEqual([]);
    expect((await store().getItem("never"))?.status).toBe("open");
    expect((await store().getItem("done"))?.status).toBe("answered");
    expect((await store().auditOf("plain")).at(-1)).toEqual({ interruptId: "plain", at: iso(T0 + 1_500), kind: "expired", detail: { action: "none" } });
    expect((await store().auditOf("dflt")).at(-1)).toEqual({
      interruptId: "dflt",
      at: iso(T0 + 2_000),
      kind: "expired",
      detail: { action: "default_response", response: false },
    });
  });

  it("cancels the pending items of a run or a thread, and only those", async () => {
    await store().createItem(newItem("a"), T0);
    await store().createItem(newItem("b"), T0);
    await store().createItem(newItem("c", { runId: "r2" }), T0);
    await store().createItem(newItem("d", { threadId: "t2", runId: "r3" }), T0);
    await store().answer("b", alice, 1, T0);
    const cancelled = await store().cancelForRun("r1", T0 + 1, "run_cancelled");
    expect(cancelled.map((i) => [i.interruptId, i.status])).toEqual([["a", "cancelled"]]);
    expect((await store().auditOf("a")).at(-1)).toEqual({ interruptId: "a", at: iso(T0 + 1), kind: "cancelled", reason: "run_cancelled" });
    expect((await store().getItem("b"))?.status).toBe("answered");
    expect((await store().getItem("c"))?.status).toBe("open");
    expect((await store().cancelForThread("t1", T0 + 2)).map((i) => i.interruptId)).toEqual(["c"]);
    expect((await store().auditOf("c")).at(-1)?.reason).toBe("run_ended");
    expect((await store().getItem("d"))?.status).toBe("open");
    expect(await store().cancelForRun("r1", T0 + 3)).toEqual([]);
  });

  it("deletes every item of a thread, whatever its status, with its audit trail, and only those", async () => {
    await store().createItem(newItem("a"), T0);
    await store().createItem(newItem("b"), T0);
    await store().createItem(newItem("c", { runId: "r2" }), T0);
    await store().createItem(newItem("d", { threadId: "t2", runId: "r3" }), T0);
    await store().answer("b", alice, 1, T0);
    expect(await store().deleteForThread("t1")).toBe(3);
    for (const id of ["a", "b", "c"]) {
      expect(await store().getItem(id)).toBeUndefined();
      expect(await store().auditOf(id)).toEqual([]);
    }
    expect((await store().getItem("d"))?.status).toBe("open");
    expect((await store().auditOf("d")).length).toBeGreaterThan(0);
    expect(await store().listItems({ tenant: "acme", threadId: "t1" })).toEqual([]);
    expect(await store().deleteForThread("t1")).toBe(0);
    // The id can be asked again (a thread re-created under the same id).
    expect((await store().createItem(newItem("a"), T0 + 5)).created).toBe(true);
  });

  it("hands a batch resume over once, when no interrupt of the run is pending", async () => {
    for (const id of ["x", "y"]) await store().createItem(newItem(id), T0);
    await store().createItem(newItem("z", { routing: { expiresAt: iso(T0 + 10), onExpire: { response: "default" } } }), T0);
    await store().answer("x", alice, "ax", T0 + 1);
    expect(await store().takeResume("r1", "batch", T0 + 1, "resume-a")).toBeNull();
    await store().answer("y", bob, "by", T0 + 2);
    expect(await store().takeResume("r1", "batch", T0 + 2, "resume-b")).toBeNull();
    await store().expireDue(T0 + 10);
    const batch = await store().takeResume("r1", "batch", T0 + 11, "resume-c");
    expect(batch).toEqual({
      runId: "r1",
      resumeRunId: "resume-c",
      threadId: "t1",
      tenant: "acme",
      answers: { x: "ax", y: "by", z: "default" },
      defaulted: ["z"],
      edits: {},
      startedBy: "sam",
    });
    expect(await store().takeResume("r1", "batch", T0 + 12, "resume-d")).toBeNull();
    expect(await store().takeResume("r1", "eager", T0 + 12, "resume-e")).toBeNull();
    expect(await store().getItem("x")).toMatchObject({ resumedAt: iso(T0 + 11), resumeRunId: "resume-c", appliedAt: null });
  });

  it("keeps a taken batch, with its answers' edits, until its resume run applied it", async () => {
    for (const id of ["x", "y"]) await store().createItem(newItem(id), T0);
    await store().createItem(newItem("other", { runId: "r2", threadId: "t2" }), T0);
    await store().answer("x", alice, "ax", T0 + 1, { update: { note: "a", keep: 1 }, goto: ["left"] });
    await store().answer("y", bob, "by", T0 + 2, { update: { note: "b" }, goto: [{ node: "right", input: { n: 0 } }] });
    await store().answer("other", alice, "o", T0 + 2);
    expect(await store().unappliedResumes()).toEqual([]);
    expect((await store().getItem("x"))?.answer).toEqual({ value: "ax", by: { sub: "alice", name: "Alice" }, at: iso(T0 + 1), edits: { update: { note: "a", keep: 1 }, goto: ["left"] } });
    const batch = await store().takeResume("r1", "batch", T0 + 3, "resume-1");
    const expected = {
      runId: "r1",
      resumeRunId: "resume-1",
      threadId: "t1",
      tenant: "acme",
      answers: { x: "ax", y: "by" },
      defaulted: [],
      // Later keys win; gotos add up, in answer order.
      edits: { update: { note: "b", keep: 1 }, goto: ["left", { node: "right", input: { n: 0 } }] },
      startedBy: "sam",
    };
    expect(batch).toEqual(expected);
    await store().takeResume("r2", "batch", T0 + 3, "resume-2");
    // What a restart finds: both batches taken, neither applied.
    expect(await store().unappliedResumes()).toEqual([expected, expect.objectContaining({ resumeRunId: "resume-2", answers: { other: "o" } })]);
    await store().markApplied("resume-1", T0 + 4);
    await store().markApplied("resume-1", T0 + 9);
    await store().markApplied("never-taken", T0 + 9);
    expect((await store().unappliedResumes()).map((b) => b.resumeRunId)).toEqual(["resume-2"]);
    expect((await store().getItem("y"))?.appliedAt).toBe(iso(T0 + 4));
    expect(await store().takeResume("r1", "eager", T0 + 5, "resume-3")).toBeNull();
  });

  it("hands eager resumes over per answer, each answer once", async () => {
    for (const id of ["x", "y"]) await store().createItem(newItem(id), T0);
    expect(await store().takeResume("r1", "eager", T0, "e0")).toBeNull();
    await store().answer("x", alice, 1, T0 + 1);
    expect(await store().takeResume("r1", "eager", T0 + 1, "e1")).toMatchObject({ answers: { x: 1 }, resumeRunId: "e1" });
    expect(await store().takeResume("r1", "eager", T0 + 1, "e2")).toBeNull();
    await store().answer("y", bob, 2, T0 + 2);
    expect(await store().takeResume("r1", "eager", T0 + 2, "e3")).toMatchObject({ answers: { y: 2 }, resumeRunId: "e3" });
    expect(await store().takeResume("nope", "eager", T0 + 2, "e4")).toBeNull();
    expect((await store().unappliedResumes()).map((b) => b.resumeRunId)).toEqual(["e1", "e3"]);
  });

  it("coalesces repeated refusals of one principal for one reason into one line; others stay apart", async () => {
    await store().createItem(newItem("i1", { routing: { users: ["alice"] } }), T0);
    for (let i = 1; i <= 500; i++) await store().answer("i1", bob, { attempt: i, blob: "x".repeat(100) }, T0 + i);
    await store().answer("i1", carol, "no", T0 + 501);
    await store().answer("i1", bob, "again", T0 + 502);
    for (let i = 0; i < 200; i++) await store().answer("i1", eve, "other tenant", T0 + 600 + i);
    const audit = await store().auditOf("i1");
    expect(audit.map((e) => [e.kind, e.by?.sub, e.reason])).toEqual([
      ["requested", undefined, undefined],
      ["rejected", "bob", "permission_denied"],
      ["rejected", "carol", "permission_denied"],
      ["rejected", "bob", "permission_denied"],
    ]);
    expect(audit[1]).toMatchObject({ at: iso(T0 + 1), detail: { message: expect.stringContaining("bob is not a candidate"), repeated: 500, last_at: iso(T0 + 500) } });
    expect(audit[2]?.detail).toEqual({ message: expect.any(String) });
    expect(await store().getItem("i1")).toMatchObject({ status: "open" });
  });

  it("pages the audit trail", async () => {
    await store().createItem(newItem("i1"), T0);
    for (let i = 0; i < 5; i++) {
      await store().claim("i1", alice, 1_000, T0 + 10 * i + 1);
      await store().release("i1", alice, T0 + 10 * i + 2);
    }
    const all = await store().auditOf("i1");
    expect(all).toHaveLength(11);
    expect(await store().auditOf("i1", { offset: 0, limit: 3 })).toEqual(all.slice(0, 3));
    expect(await store().auditOf("i1", { offset: 9, limit: 3 })).toEqual(all.slice(9));
    expect(await store().auditOf("i1", { offset: 11, limit: 3 })).toEqual([]);
  });

  it("keeps the whole audit trail in order", async () => {
    await store().createItem(newItem("i1", { routing: { responseSchema: { type: "string" } } }), T0);
    await store().claim("i1", alice, 1_000, T0 + 1);
    await store().release("i1", alice, T0 + 2);
    await store().claim("i1", bob, 1_000, T0 + 3);
    await store().expireClaims(T0 + 1_003);
    await store().answer("i1", sam, "self", T0 + 1_004);
    await store().answer("i1", carol, 42, T0 + 1_005);
    await store().answer("i1", carol, "approved", T0 + 1_006);
    await store().answer("i1", alice, "late", T0 + 1_007);
    const audit = await store().auditOf("i1");
    expect(audit.map((e) => [e.kind, e.by?.sub, e.reason, e.at])).toEqual([
      ["requested", undefined, undefined, iso(T0)],
      ["claimed", "alice", undefined, iso(T0 + 1)],
      ["released", "alice", undefined, iso(T0 + 2)],
      ["claimed", "bob", undefined, iso(T0 + 3)],
      ["claim_expired", "bob", undefined, iso(T0 + 1_003)],
      ["rejected", "sam", "permission_denied", iso(T0 + 1_004)],
      ["rejected", "carol", "invalid_argument", iso(T0 + 1_005)],
      ["answered", "carol", undefined, iso(T0 + 1_006)],
      ["rejected", "alice", "already_answered", iso(T0 + 1_007)],
    ]);
    // audit copies do not write back
    audit.length = 0;
    expect(await store().auditOf("i1")).toHaveLength(9);
  });
}
