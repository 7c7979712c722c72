/**
 * Store tests of the review conformance suite for review workflows (issue
 * 18): quorum votes, ordered stages, payload digests and revisions, and
 * reassignment — every rule decided inside the store, so each backend runs them.
 */
import { expect, it } from "vitest";
import type { Principal } from "../../../../hub/auth/index.ts";
import { payloadDigest } from "../../../../hub/review/quorum.ts";
import type { VoteResult } from "../../../../hub/review/quorum.ts";
import type { AuditEntry, Decision, ReviewStore } from "../../../../hub/review/index.ts";
import { T0, alice, bob, carol, iso, newItem, rita, root, sam } from "../../review/fixtures.ts";

const dave: Principal = { sub: "dave", name: "Dave", tenant: "acme", roles: ["reviewer"] };

function reviewer(i: number): Principal {
  return { sub: `rev-${i}`, name: `Reviewer ${i}`, tenant: "acme", roles: ["reviewer"] };
}

const kinds = (audit: AuditEntry[]) => audit.map((e) => e.kind);

function accepted(decision: Decision & { vote?: VoteResult }) {
  if (!decision.ok) throw new Error(`expected an accepted answer, got ${JSON.stringify(decision)}`);
  return decision;
}

function refusalOf(decision: Decision) {
  if (decision.ok) throw new Error(`expected a refusal, got ${JSON.stringify(decision)}`);
  return decision;
}

const twoOfThree = { users: ["alice", "bob", "carol"], quorum: { mode: "k_of_n" as const, k: 2 } };

export function workflowTests(store: () => ReviewStore): void {
  it("k_of_n: the item stays open until k approve, resumes once with the deciding vote, refuses a second vote", async () => {
    const { item } = await store().createItem(newItem("q1", { routing: twoOfThree }), T0);
    const first = accepted(await store().answer("q1", alice, { type: "approve", note: "a" }, T0 + 1));
    expect(first.item.status).toBe("open");
    expect(first.item.answer).toBeNull();
    expect(first.vote).toEqual({
      vote: { by: { sub: "alice", name: "Alice" }, at: iso(T0 + 1), verdict: "approve", value: { type: "approve", note: "a" }, stage: 0, revision: 0 },
      progress: { approved: 1, rejected: 0, required: 2, approvers: ["Alice"], rejecters: [], stage: 0, stages: 1, stageName: null },
      outcome: "pending",
    });
    expect(await store().takeResume("r1", "eager", T0 + 1, "early")).toBeNull();

    const twice = refusalOf(await store().answer("q1", alice, { type: "approve" }, T0 + 2));
    expect(twice).toMatchObject({ code: "already_voted", votedAt: iso(T0 + 1), verdict: "approve" });

    const second = accepted(await store().answer("q1", bob, { type: "approve", note: "b" }, T0 + 3));
    expect(second.item.status).toBe("answered");
    expect(second.item.answer).toEqual({ value: { type: "approve", note: "b" }, by: { sub: "bob", name: "Bob" }, at: iso(T0 + 3) });
    expect(second.vote?.outcome).toBe("approved");
    expect(second.vote?.progress).toMatchObject({ approved: 2, required: 2, approvers: ["Alice", "Bob"] });
    expect(second.item.votes.map((v) => v.by.sub)).toEqual(["alice", "bob"]);

    const late = refusalOf(await store().answer("q1", carol, { type: "approve" }, T0 + 4));
    expect(late).toMatchObject({ code: "already_answered", winner: { sub: "bob", name: "Bob" } });

    const batch = await store().takeResume("r1", "batch", T0 + 5, "resume-1");
    expect(batch?.answers).toEqual({ q1: { type: "approve", note: "b" } });
    expect(await store().takeResume("r1", "batch", T0 + 6, "resume-2")).toBeNull();

    const audit = await store().auditOf("q1");
    expect(kinds(audit)).toEqual(["requested", "voted", "rejected", "voted", "answered", "rejected"]);
    expect(audit[0]?.detail).toMatchObject({ quorum: { mode: "k_of_n", k: 2 } });
    expect(audit[1]).toMatchObject({ by: { sub: "alice" }, detail: { verdict: "approve", outcome: "pending", progress: { approved: 1, required: 2 } } });
    expect(audit[2]).toMatchObject({ reason: "already_voted", by: { sub: "alice" } });
    expect(audit[4]).toMatchObject({ by: { sub: "bob" }, detail: { decidedBy: "approved", votes: 2 } });
    expect(audit[5]?.reason).toBe("already_answered");
    expect((await store().getItem("q1"))?.votes).toHaveLength(2);
    expect(item.votes).toEqual([]);
  });

  it("a reject by a required reviewer ends the item (rejectEnds defaults to true) with the rejecting value", async () => {
    await store().createItem(newItem("q1", { routing: twoOfThree }), T0);
    accepted(await store().answer("q1", alice, true, T0 + 1));
    const no = accepted(await store().answer("q1", bob, { type: "reject", message: "too much" }, T0 + 2));
    expect(no.vote?.outcome).toBe("rejected");
    expect(no.vote?.progress).toMatchObject({ approved: 1, rejected: 1, rejecters: ["Bob"] });
    expect(no.item).toMatchObject({ status: "answered", answer: { value: { type: "reject", message: "too much" }, by: { sub: "bob" } } });
    expect(refusalOf(await store().answer("q1", carol, true, T0 + 3))).toMatchObject({ code: "already_answered", winner: { sub: "bob" } });
    const batch = await store().takeResume("r1", "batch", T0 + 4, "resume");
    expect(batch?.answers).toEqual({ q1: { type: "reject", message: "too much" } });
  });

  it("rejectEnds false: a reject is counted; the item ends only when the listed users can no longer reach k", async () => {
    const routing = { users: ["alice", "bob", "carol"], quorum: { mode: "k_of_n" as const, k: 2, rejectEnds: false } };
    await store().createItem(newItem("ok", { routing }), T0);
    expect(accepted(await store().answer("ok", alice, false, T0 + 1)).vote?.outcome).toBe("pending");
    expect(accepted(await store().answer("ok", bob, { approved: true }, T0 + 2)).vote?.outcome).toBe("pending");
    const met = accepted(await store().answer("ok", carol, { approved: true, by: "carol" }, T0 + 3));
    expect(met.vote?.outcome).toBe("approved");
    expect(met.item.answer?.value).toEqual({ approved: true, by: "carol" });

    await store().createItem(newItem("no", { routing }), T0);
    expect(accepted(await store().answer("no", alice, { approved: false }, T0 + 1)).item.status).toBe("open");
    const ended = accepted(await store().answer("no", bob, { type: "ignore" }, T0 + 2));
    expect(ended.vote?.outcome).toBe("rejected");
    expect(ended.item.answer).toMatchObject({ value: { type: "ignore" }, by: { sub: "bob" } });
  });

  it("all: every listed user approves; an admin's approval does not stand in for one", async () => {
    await store().createItem(newItem("q1", { routing: { users: ["alice", "bob"], quorum: { mode: "all" } } }), T0);
    accepted(await store().answer("q1", alice, "yes", T0 + 1));
    const admin = accepted(await store().answer("q1", root, "yes", T0 + 2));
    expect(admin.item.status).toBe("open");
    expect(admin.vote?.progress).toMatchObject({ approved: 1, required: 2, approvers: ["Alice"] });
    expect(refusalOf(await store().answer("q1", carol, "yes", T0 + 3)).code).toBe("permission_denied");
    const last = accepted(await store().answer("q1", bob, "yes from bob", T0 + 4));
    expect(last.item).toMatchObject({ status: "answered", answer: { value: "yes from bob", by: { sub: "bob" } } });
    expect(last.vote?.progress).toMatchObject({ approved: 2, required: 2, approvers: ["Alice", "Bob"] });
  });

  it("stages: the next stage's candidates vote only after the stage before is approved; progress names the stage", async () => {
    const stages = [
      { name: "review", users: ["alice", "bob"], roles: [], quorum: { mode: "k_of_n" as const, k: 2 } },
      { name: "manager", users: [], roles: ["legal"] },
    ];
    const { item } = await store().createItem(newItem("s1", { routing: { stages } }), T0);
    expect(item.routing).toMatchObject({ users: ["alice", "bob"], roles: [] });
    expect(item.stage).toBe(0);
    expect(refusalOf(await store().answer("s1", carol, "approve", T0 + 1)).code).toBe("permission_denied");
    accepted(await store().answer("s1", alice, "approve", T0 + 2));
    const staged = accepted(await store().answer("s1", bob, "approve", T0 + 3));
    expect(staged.vote?.outcome).toBe("stage_approved");
    expect(staged.vote?.progress).toMatchObject({ approved: 2, required: 2, stage: 0, stages: 2, stageName: "review" });
    expect(staged.item).toMatchObject({ status: "open", stage: 1, answer: null, routing: { users: [], roles: ["legal"] } });
    expect(await store().takeResume("r1", "eager", T0 + 3, "early")).toBeNull();
    expect(refusalOf(await store().answer("s1", alice, "approve", T0 + 4)).code).toBe("permission_denied");
    const done = accepted(await store().answer("s1", carol, { type: "approve", by: "manager" }, T0 + 5));
    expect(done.vote?.progress).toMatchObject({ approved: 1, required: 1, approvers: ["Carol"], stage: 1, stageName: "manager" });
    expect(done.item).toMatchObject({ status: "answered", answer: { value: { type: "approve", by: "manager" }, by: { sub: "carol" } } });
    expect(done.item.votes.map((v) => [v.by.sub, v.stage])).toEqual([["alice", 0], ["bob", 0], ["carol", 1]]);
    expect((await store().getItem("s1"))?.stage).toBe(1);
  });

  it("stages: a reject in a later stage ends the item; a stage without candidates takes the item's", async () => {
    const stages = [{ name: "review", users: [], roles: [] }, { name: "manager", users: ["carol"], roles: [] }];
    const { item } = await store().createItem(newItem("s1", { routing: { users: ["alice"], stages } }), T0);
    expect(item.routing.stages?.[0]).toMatchObject({ users: ["alice"] });
    accepted(await store().answer("s1", alice, "approve", T0 + 1));
    const no = accepted(await store().answer("s1", carol, { type: "reject" }, T0 + 2));
    expect(no.vote).toMatchObject({ outcome: "rejected", progress: { stage: 1, stageName: "manager", rejected: 1 } });
    expect(no.item).toMatchObject({ status: "answered", answer: { value: { type: "reject" }, by: { sub: "carol" } } });
  });

  it("20 concurrent votes on a 3-of-n item: exactly 3 count, the third decides, the rest learn the winner", async () => {
    await store().createItem(newItem("race", { routing: { quorum: { mode: "k_of_n", k: 3 } } }), T0);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store().answer("race", reviewer(i), { from: i }, T0 + 1)));
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(3);
    const stored = await store().getItem("race");
    expect(stored?.status).toBe("answered");
    expect(stored?.votes).toHaveLength(3);
    const decider = stored?.votes[2]?.by;
    expect(stored?.answer?.by).toEqual(decider);
    for (const loser of results.filter((r) => !r.ok)) expect(loser).toMatchObject({ code: "already_answered", winner: decider });
    const audit = await store().auditOf("race");
    expect(kinds(audit).filter((k) => k === "voted")).toHaveLength(3);
    expect(kinds(audit).filter((k) => k === "answered")).toHaveLength(1);
  });

  it("payload_digest: a stale digest is refused and the item stays open; the current one is accepted", async () => {
    const { item } = await store().createItem(newItem("d1"), T0);
    expect(item.payloadDigest).toBe(payloadDigest(item.payload, 0));
    expect(item.payloadDigest).toMatch(/^[0-9a-f]{64}$/);
    const stale = refusalOf(await store().answer("d1", alice, "ok", T0 + 1, undefined, { payloadDigest: "0".repeat(64) }));
    expect(stale.code).toBe("stale_payload");
    expect(await store().getItem("d1")).toEqual(item);
    expect((await store().auditOf("d1")).at(-1)).toMatchObject({ kind: "rejected", reason: "stale_payload", by: { sub: "alice" } });
    const good = accepted(await store().answer("d1", alice, "ok", T0 + 2, undefined, { payloadDigest: item.payloadDigest }));
    expect(good.item.status).toBe("answered");
  });

  it("an edit of the thread's state moves pending items to a new revision: old digests are stale, earlier votes stop counting", async () => {
    const { item } = await store().createItem(newItem("d1", { routing: twoOfThree }), T0);
    await store().createItem(newItem("other", { threadId: "t2" }), T0);
    await store().createItem(newItem("done"), T0);
    await store().answer("done", bob, "ok", T0);
    accepted(await store().answer("d1", alice, "approve", T0 + 1));
    const revised = await store().reviseForThread("t1", T0 + 2, "state_updated");
    expect(revised.map((i) => i.interruptId)).toEqual(["d1"]);
    const now = await store().getItem("d1");
    expect(now).toMatchObject({ revision: 1, payloadDigest: payloadDigest(item.payload, 1), status: "open" });
    expect(now?.payloadDigest).not.toBe(item.payloadDigest);
    expect((await store().getItem("other"))?.revision).toBe(0);
    expect((await store().getItem("done"))?.revision).toBe(0);
    expect((await store().auditOf("d1")).at(-1)).toMatchObject({ kind: "revised", reason: "state_updated", detail: { revision: 1 } });

    const stale = refusalOf(await store().answer("d1", bob, "approve", T0 + 3, undefined, { payloadDigest: item.payloadDigest }));
    expect(stale.code).toBe("stale_payload");
    // Alice's approval was of revision 0: she votes again, and it takes two votes of revision 1.
    const again = accepted(await store().answer("d1", alice, "approve", T0 + 4, undefined, { payloadDigest: now?.payloadDigest ?? "" }));
    expect(again.vote?.progress).toMatchObject({ approved: 1, required: 2, approvers: ["Alice"] });
    const met = accepted(await store().answer("d1", bob, "approve", T0 + 5));
    expect(met.item.status).toBe("answered");
  });

  it("an accepted answer that edits the state moves the thread's other pending items to a new revision in the same step", async () => {
    await store().createItem(newItem("a"), T0);
    const { item: b } = await store().createItem(newItem("b"), T0);
    await store().createItem(newItem("elsewhere", { threadId: "t2" }), T0);
    const plain = accepted(await store().answer("a", alice, "ok", T0 + 1));
    expect("revised" in plain).toBe(false);
    await store().createItem(newItem("c"), T0);
    const edited = await store().answer("c", alice, "ok", T0 + 2, { update: { note: "v2" } });
    expect(edited.ok && edited.revised?.map((i) => [i.interruptId, i.revision])).toEqual([["b", 1]]);
    expect((await store().getItem("b"))?.payloadDigest).toBe(payloadDigest(b.payload, 1));
    expect((await store().getItem("elsewhere"))?.revision).toBe(0);
    expect((await store().auditOf("b")).at(-1)).toMatchObject({ kind: "revised", reason: "state_updated", detail: { revision: 1 } });
    expect(refusalOf(await store().answer("b", bob, "ok", T0 + 3, undefined, { payloadDigest: b.payloadDigest })).code).toBe("stale_payload");
    // A refused answer with edits revises nothing.
    const refused = await store().answer("c", bob, "again", T0 + 4, { goto: ["x"] });
    expect(refused.ok).toBe(false);
    expect((await store().getItem("b"))?.revision).toBe(1);
  });

  it("the question re-raised with another payload is a new revision; the same payload, or a decided item, changes nothing", async () => {
    const { item } = await store().createItem(newItem("i1"), T0);
    const same = await store().createItem(newItem("i1", { runId: "r2" }), T0 + 1);
    expect(same).toEqual({ item, created: false });
    const changed = await store().createItem(newItem("i1", { runId: "r2", payload: { kind: "review", draft: "Hello again" } }), T0 + 2);
    expect(changed).toMatchObject({ created: false, revised: true });
    expect(changed.item).toMatchObject({ payload: { kind: "review", draft: "Hello again" }, revision: 1, runId: "r1" });
    expect(changed.item.payloadDigest).toBe(payloadDigest({ kind: "review", draft: "Hello again" }, 1));
    expect(await store().getItem("i1")).toEqual(changed.item);
    expect((await store().auditOf("i1")).at(-1)).toMatchObject({ kind: "revised", reason: "reraised" });
    await store().answer("i1", alice, "ok", T0 + 3);
    const answered = await store().getItem("i1");
    expect((await store().createItem(newItem("i1", { payload: "third" }), T0 + 4)).item).toEqual(answered);
  });

  it("reassign by an override role: new queue and candidates, the claim ends, an audit entry says from, to, by and why", async () => {
    await store().createItem(newItem("m1", { routing: { queue: "support", users: ["alice"] } }), T0);
    await store().claim("m1", alice, 60_000, T0 + 1);
    const moved = accepted(await store().reassign("m1", rita, { queue: "legal", roles: ["legal"], users: [], reason: "needs a lawyer" }, T0 + 2));
    expect(moved.item).toMatchObject({ status: "open", claim: null, routing: { queue: "legal", users: [], roles: ["legal"] } });
    expect((await store().listItems({ tenant: "acme", queue: "legal" })).map((i) => i.interruptId)).toEqual(["m1"]);
    expect(await store().listItems({ tenant: "acme", queue: "support" })).toEqual([]);
    expect(refusalOf(await store().answer("m1", alice, "ok", T0 + 3)).code).toBe("permission_denied");
    expect((await store().auditOf("m1")).find((e) => e.kind === "reassigned")).toEqual({
      interruptId: "m1",
      at: iso(T0 + 2),
      kind: "reassigned",
      by: { sub: "rita", name: "Rita" },
      reason: "needs a lawyer",
      detail: { from: { queue: "support", users: ["alice"], roles: [] }, to: { queue: "legal", users: [], roles: ["legal"] }, delegated: false },
    });
    accepted(await store().answer("m1", carol, "ok", T0 + 4));
    expect(refusalOf(await store().reassign("m1", rita, { queue: "x" }, T0 + 5)).code).toBe("already_answered");
  });

  it("delegation: a named candidate hands their place to named users; anything more needs an override role", async () => {
    await store().createItem(newItem("m1", { routing: { users: ["alice", "bob"] } }), T0);
    expect(refusalOf(await store().reassign("m1", alice, { queue: "elsewhere" }, T0 + 1)).code).toBe("permission_denied");
    expect(refusalOf(await store().reassign("m1", alice, { users: ["dave"], roles: ["legal"] }, T0 + 1)).code).toBe("permission_denied");
    expect(refusalOf(await store().reassign("m1", carol, { users: ["carol"] }, T0 + 1)).code).toBe("permission_denied");
    expect(refusalOf(await store().reassign("m1", sam, { users: ["dave"] }, T0 + 1)).code).toBe("permission_denied");
    expect(refusalOf(await store().reassign("m1", alice, {}, T0 + 1)).code).toBe("invalid_argument");
    const delegated = accepted(await store().reassign("m1", alice, { users: ["dave"], reason: "on leave" }, T0 + 2));
    expect(delegated.item.routing).toMatchObject({ queue: "default", users: ["bob", "dave"], roles: [] });
    expect((await store().auditOf("m1")).at(-1)).toMatchObject({ kind: "reassigned", by: { sub: "alice" }, reason: "on leave", detail: { delegated: true } });
    expect(refusalOf(await store().answer("m1", alice, "ok", T0 + 3)).code).toBe("permission_denied");
    accepted(await store().answer("m1", dave, "ok", T0 + 4));

    // A candidate who already voted on a quorum item has no place left to hand on; a rule the new candidates cannot meet is refused.
    await store().createItem(newItem("q1", { routing: twoOfThree }), T0);
    accepted(await store().answer("q1", alice, "approve", T0 + 1));
    expect(refusalOf(await store().reassign("q1", alice, { users: ["dave"] }, T0 + 2)).code).toBe("already_voted");
    expect(refusalOf(await store().reassign("q1", rita, { users: ["dave"] }, T0 + 2)).code).toBe("invalid_argument");
    const ok = accepted(await store().reassign("q1", bob, { users: ["dave"] }, T0 + 3));
    expect(ok.item.routing.users).toEqual(["alice", "carol", "dave"]);
    expect(accepted(await store().answer("q1", dave, "approve", T0 + 4)).item.status).toBe("answered");
  });
}
