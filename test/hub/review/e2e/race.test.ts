/**
 * The race: many reviewers on separate sockets answer the same interrupt at
 * once. Exactly one wins, the others learn who; the run resumes once.
 */
import { describe, expect, it, vi } from "vitest";
import { REVIEWER, WAIT, answeredEvents, isRootLifecycle, ok, openAs, reviewHub, startAndWait, tempDataDir } from "./helpers.ts";
import { internalsOf } from "../../../../hub/hub.ts";

describe.each(["memory", "sqlite"] as const)("review race (%s store)", (storage) => {
  it("50 concurrent reviewers: one success, 49 already_answered naming the winner, one resume, finalize once", async () => {
    const hub = await reviewHub({ dataDir: storage === "sqlite" ? tempDataDir() : null });
    const threadId = "race-1";
    const { operator, ids } = await startAndWait(hub, threadId, "review", { topic: "races" });
    const [id] = ids;
    const reviewers = await Promise.all(Array.from({ length: 50 }, (_, i) => openAs(hub, `rev-${i}`, REVIEWER)));
    await Promise.all(reviewers.map((r) => r.subscribe({ channels: ["input", "lifecycle"] }, { thread_id: threadId })));

    const replies = await Promise.all(
      reviewers.map((r, i) => r.request("input.respond", { namespace: [], interrupt_id: id, response: `answer-${i}` }, { thread_id: threadId })),
    );
    const wins = replies.filter((r) => r.type === "success");
    const losses = replies.filter((r) => r.type === "error");
    expect(wins).toHaveLength(1);
    expect(losses).toHaveLength(49);
    const winnerIndex = replies.findIndex((r) => r.type === "success");
    const winner = { sub: `rev-${winnerIndex}`, name: `rev-${winnerIndex} (token)` };
    for (const loss of losses) {
      expect(loss).toMatchObject({ type: "error", error: "already_answered", winner, answered_at: expect.any(Number), details: { answered_by: winner } });
    }
    expect(ok(wins[0]!)).toMatchObject({ interrupt_ids: [id], resumed: true, run_id: expect.any(String) });

    await operator.waitForEvent(isRootLifecycle("completed"));
    const state = ok(await operator.request("state.get", { namespace: [] }, { thread_id: threadId }));
    expect(state["values"]).toMatchObject({ decision: `answer-${winnerIndex}`, finalize_calls: 1 });
    // The first run and exactly one resume.
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(2);
    // Every socket (the operator's too) hears exactly one input.answered, naming the winner.
    for (const socket of [operator, ...reviewers]) {
      await vi.waitFor(() => expect(answeredEvents(socket.events)).toHaveLength(1), WAIT);
      expect(answeredEvents(socket.events)[0]?.params.data).toMatchObject({ interrupt_ids: [id], answered_by: winner, answered_at: expect.any(Number) });
      socket.expectValidFrames();
    }
  }, 30_000);
});
