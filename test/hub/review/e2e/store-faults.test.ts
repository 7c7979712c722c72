/**
 * An accepted answer whose resume could not start (the hub store failed at
 * that moment: Postgres restarting, a dropped connection) is not stranded
 * until the next restart: the coordinator tries the hand-off again, and the
 * run resumes once, under the same resume run id.
 */
import { describe, expect, it, vi } from "vitest";
import { internalsOf } from "../../../../hub/hub.ts";
import { REVIEWER, WAIT, isRootLifecycle, ok, openAs, reviewHub, startAndWait, tempDataDir, type Calls } from "./helpers.ts";

describe("a resume whose start failed", () => {
  it("is tried again until it starts: the run resumes once with the answer", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({ dataDir: tempDataDir() }, calls);
    const { operator, ids: [id] } = await startAndWait(hub, "t-retry", "gate", {});
    const store = internalsOf(hub).store;

    // The next thread update fails, as a query on a dropped connection does.
    const updateThread = store.updateThread.bind(store);
    let failures = 0;
    store.updateThread = async (...args) => {
      if (failures === 0) {
        failures += 1;
        throw new Error("Connection terminated unexpectedly");
      }
      return updateThread(...args);
    };

    const rita = await openAs(hub, "rita", REVIEWER);
    ok(await rita.request("input.respond", { namespace: [], interrupt_id: id, response: "yes" }, { thread_id: "t-retry" }));
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(failures).toBe(1);

    const values = ok(await operator.request("state.get", { namespace: [] }, { thread_id: "t-retry" }))["values"];
    expect(values).toMatchObject({ answer: "yes", done_calls: 1 });
    expect(calls["done"]).toBe(1);
    // The start and one resume: the retry reused the resume's run id instead of making another.
    const runs = await store.listRuns("t-retry");
    expect(runs.map((r) => r.status).sort()).toEqual(["completed", "interrupted"]);
    // Nothing is left to hand out: the answer was applied.
    await vi.waitFor(async () => expect(await internalsOf(hub).reviews.service.unappliedResumes()).toEqual([]), WAIT);
  });
});
