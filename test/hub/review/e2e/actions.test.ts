/**
 * Per-action decisions through a real hub: a graph raises ONE interrupt in
 * the shape of LangChain's human-in-the-loop middleware with two tool calls,
 * routed to two queues; two reviewers, each subscribed to their own queue
 * over a socket, answer their own action; the graph resumes once, with both
 * decisions in action order.
 */
import { describe, expect, it, vi } from "vitest";
import { END, START, StateGraph, interrupt, lastValue, type Checkpointer } from "../../../../engine/index.ts";
import type { Assistant } from "../../../../hub/index.ts";
import type { ProtocolEvent } from "../../../../hub/protocol/index.ts";
import { internalsOf } from "../../../../hub/hub.ts";
import { REVIEWER, WAIT, authHeaders, isRootLifecycle, ok, openAs, reviewHub, startAndWait } from "./helpers.ts";

/** The thread's multi-action interrupts with their items' statuses, by interrupt id. */
async function pendingGroups(hub: Awaited<ReturnType<typeof reviewHub>>, threadId: string): Promise<Record<string, string[]>> {
  const items = await internalsOf(hub).reviews.itemsOnThread("acme", threadId);
  const groups: Record<string, string[]> = {};
  for (const item of items) if (item.action) (groups[item.action.interruptId] ??= []).push(item.status);
  return groups;
}

const request = {
  action_requests: [
    { name: "issue_refund", args: { order: "A-17", amount: 120 }, description: "Refund order A-17" },
    { name: "send_email", args: { to: "ada@example.com", subject: "Your refund" }, description: "Tell the customer" },
  ],
  review_configs: [
    { action_name: "issue_refund", allowed_decisions: ["approve", "reject"] },
    { action_name: "send_email", allowed_decisions: ["approve", "edit", "reject"] },
  ],
  review: { actions: { issue_refund: { queue: "finance", users: ["fiona"] }, send_email: { queue: "support", users: ["sid"] } } },
};

/** `tools`: one interrupt for two tool calls; records every value it resumed with. */
function assistants(seen: unknown[]) {
  return (checkpointer: Checkpointer): Assistant[] => {
    const graph = new StateGraph({ decisions: lastValue<unknown>() })
      .addNode("review", () => {
        const decisions = interrupt<unknown>(request);
        seen.push(decisions);
        return { decisions };
      })
      .addEdge(START, "review")
      .addEdge("review", END)
      .compile({ checkpointer, name: "tools" });
    return [{ id: "tools", description: "one interrupt, two tool calls", graph }];
  };
}

const requestedIds = (events: ProtocolEvent[]) =>
  events.flatMap((e) => (e.method === "input.requested" ? [{ id: e.params.data.interrupt_id, queue: e.queue, action: e.review?.action }] : []));

describe("per-action decisions through the hub", () => {
  it("two reviewers in two queues answer the two actions; the graph resumes once with both decisions", async () => {
    const seen: unknown[] = [];
    const hub = await reviewHub({ assistants: assistants(seen) });
    const fiona = await openAs(hub, "fiona", REVIEWER);
    const sid = await openAs(hub, "sid", REVIEWER);
    ok(await fiona.request("queue.subscribe", { queue: "finance" }));
    ok(await sid.request("queue.subscribe", { queue: "support" }));
    const { operator, ids } = await startAndWait(hub, "act-1", "tools", {});
    // The thread asked one question.
    expect(ids).toHaveLength(1);
    const [interruptId] = ids;

    await vi.waitFor(() => expect(requestedIds(fiona.events)).toHaveLength(1), WAIT);
    await vi.waitFor(() => expect(requestedIds(sid.events)).toHaveLength(1), WAIT);
    expect(requestedIds(fiona.events)).toEqual([
      { id: `${interruptId}.0`, queue: "finance", action: { interrupt_id: interruptId, index: 0, count: 2, name: "issue_refund", format: "hitl", allowed: ["approve", "reject"] } },
    ]);
    expect(requestedIds(sid.events)).toEqual([
      { id: `${interruptId}.1`, queue: "support", action: { interrupt_id: interruptId, index: 1, count: 2, name: "send_email", format: "hitl", allowed: ["approve", "edit", "reject"] } },
    ]);

    // A decision the config does not allow is refused with the reason; nothing resumes.
    const refused = await fiona.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "edit", edited_action: { name: "issue_refund", args: { amount: 1 } } } }, { thread_id: "act-1" });
    expect(refused).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining('allows approve, reject; "edit" is not one of them') });
    // Neither may answer the other's action.
    expect(await sid.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "approve" } }, { thread_id: "act-1" })).toMatchObject({ type: "error", error: "permission_denied" });

    const edited = { type: "edit", edited_action: { name: "send_email", args: { to: "ada@example.org", subject: "Your refund" } } };
    expect(ok(await sid.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.1`, response: edited }, { thread_id: "act-1" }))).toMatchObject({ resumed: false });
    expect(seen).toEqual([]);
    expect(ok(await fiona.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "reject", message: "over the limit" } }, { thread_id: "act-1" }))).toMatchObject({ resumed: true });
    await operator.waitForEvent(isRootLifecycle("completed"));

    const expected = { decisions: [{ type: "reject", message: "over the limit" }, edited] };
    expect(seen).toEqual([expected]);
    // One run asked, one resume run answered: the start and exactly one resume.
    expect(await internalsOf(hub).store.listRuns("act-1")).toHaveLength(2);
    // Each reviewer heard their own item answered; REST shows each item's action.
    await vi.waitFor(() => expect(fiona.events.some((e) => e.method === "input.answered")).toBe(true), WAIT);
    await vi.waitFor(() => expect(sid.events.some((e) => e.method === "input.answered")).toBe(true), WAIT);
    expect(seen).toHaveLength(1);
    fiona.expectValidFrames();
    sid.expectValidFrames();
  });

  it("the LangGraph API's Command({ resume: { decisions } }) answers both actions, each authorized on its own", async () => {
    const seen: unknown[] = [];
    const hub = await reviewHub({ assistants: assistants(seen) });
    const { operator } = await startAndWait(hub, "act-lg", "tools", {});
    const resume = { decisions: [{ type: "approve" }, { type: "reject", message: "not now" }] };
    const post = async (sub: string, roles: string[], body: unknown) =>
      fetch(`${hub.url}/threads/act-lg/runs/wait`, { method: "POST", headers: { ...(await authHeaders(sub, roles)), "content-type": "application/json" }, body: JSON.stringify(body) });
    // fiona may answer only the refund: the email's half is refused, the refund's stands, nothing resumes.
    const partial = await post("fiona", REVIEWER, { assistant_id: "tools", command: { resume } });
    expect(partial.status).toBe(403);
    expect(await partial.json()).toMatchObject({ error: "permission_denied", details: { accepted: [expect.stringMatching(/\.0$/)] } });
    expect(seen).toEqual([]);
    // An admin is a candidate everywhere; the refund is already decided, so only the email's decision is new.
    const done = await post("root", ["admin"], { assistant_id: "tools", command: { resume: { [Object.keys(await pendingGroups(hub, "act-lg"))[0]!]: resume } } });
    expect(done.status).toBe(409);
    expect(await done.json()).toMatchObject({ error: "already_answered", details: { accepted: [expect.stringMatching(/\.1$/)] } });
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(seen).toEqual([{ decisions: [{ type: "approve" }, { type: "reject", message: "not now" }] }]);
  });

  it("run.start with { decisions } as input answers a multi-action interrupt like input.respond to its id", async () => {
    const seen: unknown[] = [];
    const hub = await reviewHub({ assistants: assistants(seen) });
    const { operator } = await startAndWait(hub, "act-rs", "tools", {});
    const both = await openAs(hub, "bea", ["observer", "operator", "reviewer", "admin"]);
    const decisions = { decisions: [{ type: "approve" }, { type: "approve" }] };
    expect(ok(await both.request("run.start", { assistant_id: "tools", input: decisions }, { thread_id: "act-rs" }))).toMatchObject({ resumed: true });
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(seen).toEqual([decisions]);
  });
});
