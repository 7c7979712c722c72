/**
 * `threads.subscribe`: the tenant's recent threads as a snapshot, then a
 * `thread.status` event whenever a thread record changes — a run starts,
 * pauses for review, ends — on real sockets against a JWT hub. Tenants never
 * see each other's threads, any reading role may follow its own, HTTP
 * commands cannot hold it, and unsubscribing (or closing) stops it.
 */
import { describe, expect, it, vi } from "vitest";
import { HubClient } from "../../../client/index.ts";
import { onCleanup } from "../../support/hub.ts";
import { internalsOf } from "../../../hub/hub.ts";
import { decodeEvent, type ProtocolEvent, type ThreadRecordJson } from "../../../hub/protocol/index.ts";
import { OPERATOR, REVIEWER, WAIT, authHeaders, ok, openAs, reviewHub, startAndWait } from "../review/e2e/helpers.ts";

const statuses = (events: ProtocolEvent[], threadId: string): string[] =>
  events.flatMap((e) => (e.method === "thread.status" && e.params.data.thread_id === threadId ? [e.params.data.status] : []));

describe("threads.subscribe", () => {
  it("a snapshot of the tenant's recent threads, newest first, then each status change live", async () => {
    const hub = await reviewHub();
    await startAndWait(hub, "older", "gate", {});
    await startAndWait(hub, "newer", "gate", {});
    const rita = await openAs(hub, "rita", REVIEWER);
    const result = ok(await rita.request("threads.subscribe", { limit: 10 }));
    const snapshot = result["threads"] as ThreadRecordJson[];
    expect(result["subscription_id"]).toEqual(expect.any(String));
    expect(snapshot.map((t) => [t.thread_id, t.assistant_id, t.status])).toEqual([
      ["newer", "gate", "interrupted"],
      ["older", "gate", "interrupted"],
    ]);
    expect(ok(await rita.request("threads.subscribe", { limit: 1 }))["threads"]).toHaveLength(1);

    // A new thread's run: created (idle), busy, waiting for review; answered: busy again, idle.
    const { ids: [question] } = await startAndWait(hub, "live", "gate", {});
    await vi.waitFor(() => expect(statuses(rita.events, "live")).toEqual(expect.arrayContaining(["idle", "busy", "interrupted"])), WAIT);
    ok(await rita.request("input.respond", { namespace: [], interrupt_id: question, response: "yes" }, { thread_id: "live" }));
    await vi.waitFor(() => expect(statuses(rita.events, "live").at(-1)).toBe("idle"), WAIT);
    const last = rita.events.findLast((e) => e.method === "thread.status");
    expect(last).toMatchObject({ type: "event", thread_id: "live", method: "thread.status", params: { namespace: [], data: { thread_id: "live", assistant_id: "gate", status: "idle" } } });
    expect(last).not.toHaveProperty("seq");
    // Two subscriptions on one socket: each change arrives once per subscription.
    expect(statuses(rita.events, "live").filter((s) => s === "idle").length).toBe(4);
    rita.expectValidFrames();
  });

  it("a deleted thread is announced with its last record and deleted: true, and the SDK's thread list drops it", async () => {
    const hub = await reviewHub();
    await startAndWait(hub, "doomed", "gate", {});
    await startAndWait(hub, "kept", "gate", {});
    const rita = await openAs(hub, "rita", REVIEWER);
    ok(await rita.request("threads.subscribe", {}));
    const client = new HubClient({ url: hub.url, token: (await authHeaders("sam", REVIEWER))["authorization"]!.slice("Bearer ".length), reconnect: false });
    onCleanup(() => client.close());
    const list = client.threads();
    await list.subscribe();
    expect(list.threads.map((t) => t.thread_id)).toEqual(["kept", "doomed"]);
    const res = await fetch(`${hub.url}/threads/doomed`, { method: "DELETE", headers: await authHeaders("olga", OPERATOR) });
    expect(res.status).toBe(204);
    const gone = await rita.waitForEvent((e) => e.method === "thread.status" && e.thread_id === "doomed" && e.params.data.deleted === true, "the deletion");
    expect(gone).toMatchObject({ params: { data: { thread_id: "doomed", assistant_id: "gate", status: "interrupted", deleted: true } } });
    await vi.waitFor(() => expect(list.threads.map((t) => t.thread_id)).toEqual(["kept"]), WAIT);
    rita.expectValidFrames();
  });

  it("tenants never see each other's threads; any reading role may follow its own tenant's", async () => {
    const hub = await reviewHub();
    const acme = await openAs(hub, "obi", ["observer"], "acme");
    const globex = await openAs(hub, "gus", OPERATOR, "globex");
    ok(await acme.request("threads.subscribe", {}));
    ok(await globex.request("threads.subscribe", {}));
    await startAndWait(hub, "acme-1", "gate", {});
    await vi.waitFor(() => expect(statuses(acme.events, "acme-1")).toContain("interrupted"), WAIT);
    const theirs = await openAs(hub, "gus", OPERATOR, "globex");
    const list = ok(await theirs.request("threads.subscribe", {}))["threads"] as ThreadRecordJson[];
    expect(list).toEqual([]);
    expect(globex.events.filter((e) => e.method === "thread.status")).toEqual([]);
    acme.expectValidFrames();
  });

  it("refuses bad limits, unknown ids and HTTP; unsubscribing or closing stops the changes", async () => {
    const hub = await reviewHub();
    const rita = await openAs(hub, "rita", REVIEWER);
    for (const limit of [0, 201, 2.5, "10"]) {
      expect(await rita.request("threads.subscribe", { limit })).toMatchObject({ type: "error", error: "invalid_argument" });
    }
    expect(await rita.request("threads.unsubscribe", { subscription_id: "t_nope" })).toMatchObject({ type: "error", error: "no_such_subscription" });
    const http = await fetch(`${hub.url}/threads/x/commands`, {
      method: "POST",
      headers: { ...(await authHeaders("rita", REVIEWER)), "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "threads.subscribe", params: {} }),
    });
    expect(await http.json()).toMatchObject({ type: "error", error: "not_supported" });

    const id = ok(await rita.request("threads.subscribe", {}))["subscription_id"];
    ok(await rita.request("threads.unsubscribe", { subscription_id: id }));
    expect(internalsOf(hub).threadWatch.size).toBe(0);
    await startAndWait(hub, "after", "gate", {});
    expect(rita.events.filter((e) => e.method === "thread.status")).toEqual([]);

    ok(await rita.request("threads.subscribe", {}));
    expect(internalsOf(hub).threadWatch.size).toBe(1);
    await rita.close();
    await vi.waitFor(() => expect(internalsOf(hub).threadWatch.size).toBe(0), WAIT);
  });

  it("the documented thread.status example parses with the event schema", () => {
    const decoded = decodeEvent({
      type: "event",
      thread_id: "th_1",
      method: "thread.status",
      params: { namespace: [], timestamp: 1, data: { thread_id: "th_1", assistant_id: "agent", status: "busy", metadata: {}, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:01.000Z" } },
    });
    expect(decoded.ok).toBe(true);
    expect(decodeEvent({ type: "event", method: "thread.status", params: { namespace: [], timestamp: 1, data: { thread_id: "th_1", status: "asleep" } } }).ok).toBe(false);
  });
});
