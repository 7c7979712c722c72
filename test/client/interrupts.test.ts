/**
 * Interrupts and review-queue projections: requested → claimed → released →
 * answered (with who answered), expiry, cancelled runs, replays, and the
 * queue list across threads from a snapshot plus events.
 */
import { describe, expect, it } from "vitest";
import { emptyInterrupts, emptyQueue, isClaimHeld, queueFromSnapshot, reduceInterrupts, reduceNamedQueue, reduceQueue, type InterruptsState } from "../../client/index.ts";
import type { ProtocolEvent } from "../../hub/protocol/index.ts";
import { ev } from "../support/protocol-docs.ts";

const fold = (events: ProtocolEvent[], from: InterruptsState = emptyInterrupts()) => events.reduce(reduceInterrupts, from);
const ada = { sub: "u_ada", name: "Ada" };
const requested = (id: string, o: { thread_id?: string; run_id?: string; namespace?: string[] } = {}) =>
  ev("input.requested", { interrupt_id: id, payload: { question: `${id}?` } }, { node: "ask", run_id: "r1", ...o });

describe("interrupts projection", () => {
  it("tracks claim state and removes the answered question, remembering who answered", () => {
    const claimed = fold([requested("i1"), requested("i2"), ev("input.claimed", { interrupt_id: "i1", claimed_by: ada, expires_at: 2_000 })]);
    expect(claimed.pending.map((p) => [p.interrupt_id, p.status, p.claimed_by?.name])).toEqual([["i1", "claimed", "Ada"], ["i2", "open", undefined]]);
    expect(isClaimHeld(claimed.pending[0]!, 1_000)).toBe(true);
    expect(isClaimHeld(claimed.pending[0]!, 3_000)).toBe(false);

    const released = fold([ev("input.released", { interrupt_id: "i1", released_by: ada })], claimed);
    expect(released.pending[0]).not.toHaveProperty("claimed_by");
    expect(released.pending[0]?.status).toBe("open");

    const answered = fold([ev("input.answered", { interrupt_ids: ["i1"], answered_by: ada, answered_at: 5 })], released);
    expect(answered.pending.map((p) => p.interrupt_id)).toEqual(["i2"]);
    // The resolved entry keeps the question (what, where, when) for views of answered items.
    expect(answered.resolved).toEqual([
      { interrupt_id: "i1", thread_id: "th_1", outcome: "answered", answered_by: ada, at: 5, payload: { question: "i1?" }, namespace: [], node: "ask", run_id: "r1", requested_at: 1_767_225_600_000 },
    ]);
  });

  it("a replayed request does not duplicate; a repeated answer changes nothing", () => {
    const once = fold([requested("i1"), requested("i1")]);
    expect(once.pending).toHaveLength(1);
    const answered = fold([ev("input.answered", { interrupt_ids: ["i1"] })], once);
    expect(fold([ev("input.answered", { interrupt_ids: ["i1"] })], answered)).toBe(answered);
  });

  it("keeps one resolved entry per question: asked again and resolved again, only the latest outcome stays", () => {
    const expired = fold([requested("i1"), requested("i2"), ev("input.expired", { interrupt_id: "i1", expired_at: 7, action: "none" })]);
    // A restart lists the unanswered question again; then it is answered.
    const again = fold([requested("i1"), ev("input.answered", { interrupt_ids: ["i1", "i2"], answered_by: ada, answered_at: 9 })], expired);
    expect(again.resolved.map((r) => [r.interrupt_id, r.outcome])).toEqual([["i1", "answered"], ["i2", "answered"]]);
  });

  it("expiry and a cancelled run resolve their questions", () => {
    const state = fold([
      requested("i1"),
      requested("i2", { run_id: "r2" }),
      ev("input.expired", { interrupt_id: "i1", expired_at: 9, action: "default_response" }),
      ev("lifecycle", { event: "failed", error: "run cancelled", cancelled: true }, { run_id: "r2" }),
    ]);
    expect(state.pending).toEqual([]);
    expect(state.resolved.map((r) => [r.interrupt_id, r.outcome, r.action])).toEqual([["i1", "expired", "default_response"], ["i2", "cancelled", undefined]]);
  });

  it("input.cancelled withdraws a question, with its reason; other questions stay", () => {
    const state = fold([requested("i1"), requested("i2"), ev("input.cancelled", { interrupt_id: "i1", cancelled_at: 42, reason: "replaced by run r9" })]);
    expect(state.pending.map((p) => p.interrupt_id)).toEqual(["i2"]);
    expect(state.resolved).toEqual([
      { interrupt_id: "i1", thread_id: "th_1", outcome: "cancelled", at: 42, reason: "replaced by run r9", payload: { question: "i1?" }, namespace: [], node: "ask", run_id: "r1", requested_at: 1_767_225_600_000 },
    ]);
  });

  it("the raising task finishing without it, or the run completing, implies an answer", () => {
    const raised = fold([
      requested("i1", { namespace: ["review:t1"] }),
      requested("i2"),
      ev("tasks", { id: "t1", name: "review", error: null, result: null, interrupts: [{ id: "i1", value: 1 }] }, { namespace: ["review:t1"] }),
    ]);
    expect(raised.pending.find((p) => p.interrupt_id === "i1")).toMatchObject({ task_id: "t1", node: "ask" });
    const nodeless = fold([
      ev("input.requested", { interrupt_id: "i5", payload: null }),
      ev("tasks", { id: "t5", name: "r1", error: null, result: null, interrupts: [{ id: "i5", value: null }] }),
    ]);
    expect(nodeless.pending[0]).toMatchObject({ task_id: "t5", node: "r1" });
    const taskDone = fold([ev("tasks", { id: "t1", name: "review", error: null, result: { ok: true }, interrupts: [] }, { namespace: ["review:t1"] })], raised);
    expect(taskDone.pending.map((p) => p.interrupt_id)).toEqual(["i2"]);
    const completed = fold([ev("lifecycle", { event: "completed" }, { run_id: "r3" })], taskDone);
    expect(completed.pending).toEqual([]);
  });
});

describe("queue projection", () => {
  it("starts from the snapshot and follows items of several threads", () => {
    const snap = queueFromSnapshot(emptyQueue(), [
      { thread_id: "a", interrupt_id: "i1", namespace: [], payload: 1 },
      { thread_id: "b", interrupt_id: "i1", namespace: ["x:1"], node: "ask", payload: 2, claimed_by: ada, expires_at: 50 },
      { bogus: true },
    ]);
    expect(snap.pending.map((i) => [i.thread_id, i.interrupt_id, i.status])).toEqual([["a", "i1", "open"], ["b", "i1", "claimed"]]);
    // Same interrupt id on two threads: an answer on thread a leaves b's item alone.
    const next = [
      ev("input.answered", { interrupt_ids: ["i1"], answered_by: ada }, { thread_id: "a" }),
      requested("i9", { thread_id: "c" }),
    ].reduce(reduceQueue, snap);
    expect(next.pending.map((i) => [i.thread_id, i.interrupt_id])).toEqual([["b", "i1"], ["c", "i9"]]);
    expect(next.resolved).toEqual([{ interrupt_id: "i1", thread_id: "a", outcome: "answered", answered_by: ada, at: 1_767_225_600_000, payload: 1, namespace: [] }]);
    // A withdrawn item leaves the queue; the same id on another thread stays.
    const withdrawn = reduceQueue(next, ev("input.cancelled", { interrupt_id: "i1", cancelled_at: 7, reason: "run failed" }, { thread_id: "b" }));
    expect(withdrawn.pending.map((i) => [i.thread_id, i.interrupt_id])).toEqual([["c", "i9"]]);
    expect(withdrawn.resolved.at(-1)).toEqual({ interrupt_id: "i1", thread_id: "b", outcome: "cancelled", at: 7, reason: "run failed", payload: 2, namespace: ["x:1"], node: "ask" });
  });

  it("follows an escalation: the routing facts change, and the item leaves a queue it moved out of", () => {
    const review = { queue: "ops", expires_at: null, users: ["carol"], roles: [] };
    const withReview = { ...requested("i1", { thread_id: "a" }), queue: "ops", review } as ProtocolEvent;
    const escalated = ev(
      "input.escalated",
      { interrupt_id: "i1", step: 1, steps: 1, queue: "managers", users: ["carol"], roles: ["manager"], from: { queue: "ops", users: ["carol"], roles: [] }, escalated_at: 5 },
      { thread_id: "a" },
    );
    const inOps = reduceNamedQueue(emptyQueue(), withReview, "ops");
    expect(inOps.pending.map((p) => p.review?.queue)).toEqual(["ops"]);
    // The old queue's list drops it (unresolved: it still waits, elsewhere).
    expect(reduceNamedQueue(inOps, escalated, "ops")).toEqual({ pending: [], resolved: [] });
    // Every queue ("*") and a thread's view keep it, with the new routing.
    const everywhere = reduceNamedQueue(inOps, escalated, "*");
    expect(everywhere.pending.map((p) => [p.interrupt_id, p.review?.queue, p.review?.roles])).toEqual([["i1", "managers", ["manager"]]]);
    expect(fold([withReview, escalated]).pending.map((p) => p.review?.queue)).toEqual(["managers"]);
  });
  it("a vote on a quorum item moves its progress along; an item without a quorum is left as it is", () => {
    const progress = (approved: number, approvers: string[]) => ({ approved, rejected: 0, required: 2, approvers, rejecters: [], stage: 0, stages: 1, stage_name: null });
    const review = { queue: "finance", expires_at: null, users: ["rita", "sam"], roles: [], quorum: { rule: { mode: "k_of_n", k: 2, reject_ends: true }, progress: progress(0, []) } };
    const asked = { ...requested("i1", { thread_id: "a" }), queue: "finance", review } as ProtocolEvent;
    const plain = { ...requested("i2", { thread_id: "a" }), queue: "finance", review: { queue: "finance", expires_at: null, users: [], roles: [] } } as ProtocolEvent;
    const vote = (id: string) => ev("input.voted", { interrupt_id: id, by: { sub: "rita", name: "Rita" }, verdict: "approve", outcome: "pending", progress: progress(1, ["Rita"]) }, { thread_id: "a" });
    const state = [asked, plain, vote("i1"), vote("i2")].reduce((q, e) => reduceNamedQueue(q, e, "finance"), emptyQueue());
    expect(state.pending.map((p) => [p.interrupt_id, p.status, p.review?.quorum?.progress.approvers])).toEqual([
      ["i1", "open", ["Rita"]],
      ["i2", "open", undefined],
    ]);
    expect(state.pending[0]?.review?.quorum?.progress).toMatchObject({ approved: 1, required: 2 });
  });
});
