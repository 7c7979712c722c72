/**
 * Review items live in the hub's SQLite file: after a restart an item is
 * still answerable (first answer wins as before), and a deadline set before
 * the restart still fires with its default response.
 */
import { describe, expect, it } from "vitest";
import { REVIEWER, isRootLifecycle, ok, openAs, reviewHub, startAndWait, tempDataDir } from "./helpers.ts";
import { internalsOf } from "../../../../hub/hub.ts";

describe("review items across a restart", () => {
  it("an item stored before the restart is answered after it; the item's deadline timer is re-armed at start", async () => {
    const dataDir = tempDataDir();
    const first = await reviewHub({ dataDir });
    const { ids: [kept] } = await startAndWait(first, "r-kept", "gate", { review: { queue: "ops" } });
    const { ids: [timed] } = await startAndWait(first, "r-timed", "gate", { review: { expiresIn: "1h", onExpire: { response: "auto" } } });
    await first.close();

    // The second process's clock is two hours on: the deadline has passed when it starts.
    const second = await reviewHub({ dataDir, review: { clock: () => Date.now() + 2 * 3_600_000 } });
    const rita = await openAs(second, "rita", REVIEWER);
    await rita.subscribe({ channels: ["lifecycle"] }, { thread_id: "r-timed" });
    await rita.waitForEvent(isRootLifecycle("completed"));
    const timedState = ok(await rita.request("state.get", { namespace: [] }, { thread_id: "r-timed" }));
    expect(timedState["values"]).toMatchObject({ answer: "auto", done_calls: 1 });
    expect((await internalsOf(second).reviews.service.review({ sub: "o", name: "o", tenant: "acme", roles: ["observer"] }, timed!))).toMatchObject({ ok: true, item: { status: "expired" } });

    expect(ok(await rita.request("queue.subscribe", { queue: "ops" }))).toMatchObject({ items: 1 });
    await rita.subscribe({ channels: ["lifecycle"] }, { thread_id: "r-kept" });
    expect(ok(await rita.request("input.respond", { namespace: [], interrupt_id: kept, response: "after restart" }, { thread_id: "r-kept" }))).toMatchObject({ resumed: true });
    await rita.waitForEvent((e) => e.thread_id === "r-kept" && isRootLifecycle("completed")(e));
    expect(await rita.request("input.respond", { namespace: [], interrupt_id: kept, response: "again" }, { thread_id: "r-kept" })).toMatchObject({ type: "error", error: "already_answered", winner: { sub: "rita" } });
  });
});
