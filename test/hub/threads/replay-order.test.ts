/**
 * docs/PROTOCOL.md, "Subscriptions, replay and reconnection": a subscribe
 * without `since` replays the last root `values`, the pending questions and
 * the current run's events — each once, in ascending `seq`, and nothing of
 * an earlier run's end (issue 14 item 18: the order the page promised was
 * not the order sent; the page now says what the hub does, and this pins it).
 */
import { describe, expect, it } from "vitest";
import { ALL_CHANNELS, TestSocket, interruptIdsOf, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";

describe("replay without since", () => {
  it("is the baseline and the current run's events, once each, in ascending seq", async () => {
    const hub = await testHub();
    const url = wsUrl(hub, "/threads/t-replay/stream/events");
    const driver = await TestSocket.open(url);
    await driver.subscribe({ channels: ALL_CHANNELS });
    // A first run that completes, then a second one that pauses on its question.
    await driver.request("run.start", { assistant_id: "review", input: { topic: "a" } });
    await driver.waitForEvent(isRootLifecycle("interrupted"));
    const [first] = interruptIdsOf(driver.events);
    await driver.request("input.respond", { namespace: [], interrupt_id: first, response: { approve: true } });
    await driver.waitForEvent(isRootLifecycle("completed"));
    const before = driver.events.length;
    await driver.request("run.start", { assistant_id: "review", input: { topic: "b" } });
    await driver.waitForEvent((e) => driver.events.indexOf(e) >= before && isRootLifecycle("interrupted")(e));

    const late = await TestSocket.open(url);
    await late.subscribe({ channels: ALL_CHANNELS });
    await late.waitForEvent(isRootLifecycle("interrupted"));
    const replay = late.events;
    const seqs = replay.map((e) => e.seq ?? -1);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // The current state, the open question, the current run from its start — no earlier run's end.
    const lastValues = driver.events.filter((e) => e.method === "values" && e.params.namespace.length === 0).at(-1);
    expect(replay.map((e) => e.seq)).toContain(lastValues?.seq);
    const pending = interruptIdsOf(driver.events.slice(before));
    expect(interruptIdsOf(replay)).toEqual(pending);
    expect(replay.filter(isRootLifecycle("completed"))).toEqual([]);
    expect(replay.find(isRootLifecycle("started"))?.run_id).toBe(driver.events.slice(before).find(isRootLifecycle("started"))?.run_id);
    late.expectValidFrames();
  });
});
