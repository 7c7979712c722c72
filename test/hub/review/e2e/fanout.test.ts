/**
 * Parallel fan-out: three interrupts from three branches, answered by three
 * reviewers in any order. Batch (default): one resume with all three answers.
 * Eager: a resume after each answer, and no branch runs more often than the
 * engine requires (each branch twice: once to ask, once with its answer).
 */
import { describe, expect, it, vi } from "vitest";
import { HUB_STORAGES } from "../../../support/hub.ts";
import { REVIEWER, WAIT, answeredEvents, isRootLifecycle, ok, openAs, reviewHub, startAndWait, type Calls } from "./helpers.ts";
import { internalsOf } from "../../../../hub/hub.ts";

describe("parallel review fan-out", () => {
  it("batch: three reviewers answer in any order; the run resumes once with all three answers", async () => {
    const hub = await reviewHub();
    const threadId = "fan-batch";
    const { operator, ids } = await startAndWait(hub, threadId, "parallel-review", {}, { expected: 3 });
    const reviewers = await Promise.all(["ann", "bob", "cat"].map((sub) => openAs(hub, sub, REVIEWER)));
    // Reverse order, one at a time: no resume until the last one.
    for (const [i, id] of [...ids.entries()].reverse()) {
      const result = ok(await reviewers[i]!.request("input.respond", { namespace: [], interrupt_id: id, response: `yes-${i}` }, { thread_id: threadId }));
      expect(result["resumed"]).toBe(i === 0);
      if (i > 0) expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(1);
    }
    await operator.waitForEvent(isRootLifecycle("completed"));
    const values = ok(await operator.request("state.get", { namespace: [] }, { thread_id: threadId }))["values"] as { answers: Array<{ answer: string }>; joined: boolean };
    expect(values.joined).toBe(true);
    expect(values.answers.map((a) => a.answer).sort()).toEqual(["yes-0", "yes-1", "yes-2"]);
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(2);
    // One input.answered per answer, each naming its reviewer.
    await vi.waitFor(() => expect(answeredEvents(operator.events)).toHaveLength(3), WAIT);
    expect(answeredEvents(operator.events).map((e) => e.method === "input.answered" && e.params.data.answered_by?.sub).sort()).toEqual(["ann", "bob", "cat"]);
  });

  it("batch: three concurrent answers from three sockets still resume exactly once", async () => {
    const hub = await reviewHub();
    const threadId = "fan-concurrent";
    const { operator, ids } = await startAndWait(hub, threadId, "parallel-review", {}, { expected: 3 });
    const reviewers = await Promise.all(["ann", "bob", "cat"].map((sub) => openAs(hub, sub, REVIEWER)));
    const replies = await Promise.all(ids.map((id, i) => reviewers[i]!.request("input.respond", { namespace: [], interrupt_id: id, response: i }, { thread_id: threadId })));
    expect(replies.map((r) => r.type)).toEqual(["success", "success", "success"]);
    expect(replies.filter((r) => r.type === "success" && r.result["resumed"] === true)).toHaveLength(1);
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(2);
  });

  it("eager (run.start review_policy): progress after each answer; each branch runs only as often as the engine requires", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({}, calls);
    const threadId = "fan-eager";
    const { operator, ids } = await startAndWait(hub, threadId, "fan3", {}, { expected: 3, params: { review_policy: "eager" } });
    expect(calls).toEqual({ a: 1, b: 1, c: 1 });
    const reviewers = await Promise.all(["ann", "bob", "cat"].map((sub) => openAs(hub, sub, REVIEWER)));
    for (const [n, id] of ids.entries()) {
      const result = ok(await reviewers[n]!.request("input.respond", { namespace: [], interrupt_id: id, response: "ok" }, { thread_id: threadId }));
      expect(result["resumed"]).toBe(true);
      const done = n === ids.length - 1 ? "completed" : "interrupted";
      await vi.waitFor(() => expect(operator.events.filter(isRootLifecycle(done))).toHaveLength(done === "completed" ? 1 : n + 2), WAIT);
      // After each answer its branch ran again with it (the engine commits the step's writes when all branches are done).
      expect(["a", "b", "c"].map((who) => calls[who])).toEqual(["a", "b", "c"].map((_, i) => (i <= n ? 2 : 1)));
    }
    const values = ok(await operator.request("state.get", { namespace: [] }, { thread_id: threadId }))["values"] as { answers: string[]; joined: boolean };
    expect(values).toMatchObject({ joined: true });
    expect([...values.answers].sort()).toEqual(["a=ok", "b=ok", "c=ok"]);
    expect(calls).toEqual({ a: 2, b: 2, c: 2, join: 1 });
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(4);
  });

  it("eager, three concurrent answers: resumes queue behind each other, each branch still runs twice, join once", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({}, calls);
    const threadId = "fan-eager-race";
    const { operator, ids } = await startAndWait(hub, threadId, "fan3", {}, { expected: 3, params: { review_policy: "eager" } });
    const reviewers = await Promise.all(["ann", "bob", "cat"].map((sub) => openAs(hub, sub, REVIEWER)));
    const replies = await Promise.all(ids.map((id, i) => reviewers[i]!.request("input.respond", { namespace: [], interrupt_id: id, response: i }, { thread_id: threadId })));
    expect(replies.map((r) => r.type)).toEqual(["success", "success", "success"]);
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(calls).toEqual({ a: 2, b: 2, c: 2, join: 1 });
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(4);
  });

  it("eager from thread metadata (POST /threads { metadata: { review_policy } })", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({}, calls);
    const threadId = "fan-eager-meta";
    const headers = { ...(await (await import("./helpers.ts")).authHeaders("olive", ["operator"])), "content-type": "application/json" };
    const created = await fetch(`${hub.url}/threads`, { method: "POST", headers, body: JSON.stringify({ thread_id: threadId, metadata: { review_policy: "eager" } }) });
    expect(created.status).toBe(200);
    const { operator, ids } = await startAndWait(hub, threadId, "fan3", {}, { expected: 3 });
    const reviewer = await openAs(hub, "ann", REVIEWER);
    expect(ok(await reviewer.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "ok" }, { thread_id: threadId }))["resumed"]).toBe(true);
    await vi.waitFor(() => expect(operator.events.filter(isRootLifecycle("interrupted"))).toHaveLength(2), WAIT);
    expect(calls).toMatchObject({ a: 2, b: 1, c: 1 });
  });
});

describe.each(HUB_STORAGES)("eager resumes on the wire ($name)", (storage) => {
  it("eager: each resumed run asks its still-open questions again (same ids) and does not resend finished branches' updates", async () => {
    const hub = await reviewHub(storage.config());
    const threadId = "fan-eager-wire";
    const { operator, ids } = await startAndWait(hub, threadId, "fan3", {}, { expected: 3, params: { review_policy: "eager" } });
    const watcher = await openAs(hub, "wes", REVIEWER);
    await watcher.subscribe({ channels: ["lifecycle", "input", "updates"] }, { thread_id: threadId });
    const reviewer = await openAs(hub, "ann", REVIEWER);
    for (const [n, id] of ids.slice(0, 2).entries()) {
      ok(await reviewer.request("input.respond", { namespace: [], interrupt_id: id, response: "ok" }, { thread_id: threadId }));
      await vi.waitFor(() => expect(operator.events.filter(isRootLifecycle("interrupted"))).toHaveLength(n + 2), WAIT);
    }
    // The watcher joined after the first run (whose events it may get as a replay): the last two runs are the resumes.
    const runIds = [...new Set(watcher.events.flatMap((e) => (e.method === "lifecycle" && e.run_id !== undefined ? [e.run_id] : [])))].slice(-2);
    expect(runIds).toHaveLength(2);
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(3);
    const of = (runId: string | undefined, method: string) => watcher.events.filter((e) => e.run_id === runId && e.method === method);
    const asked = (runId: string | undefined) => of(runId, "input.requested").map((e) => (e.method === "input.requested" ? e.params.data.interrupt_id : "")).sort();
    const updated = (runId: string | undefined) => of(runId, "updates").map((e) => (e.method === "updates" ? e.params.data.node : ""));
    // The first resume answered ids[0]: its run still waits on the other two and says so.
    expect(asked(runIds[0])).toEqual([ids[1], ids[2]].sort());
    expect(asked(runIds[1])).toEqual([ids[2]]);
    // The second resume replays the branch that finished in the first one: not sent again as an update.
    const [first, second] = [updated(runIds[0]), updated(runIds[1])];
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(second).not.toEqual(first);
  });
});
