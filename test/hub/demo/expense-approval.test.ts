/**
 * The `expense-approval` demo end to end through a real hub (JWT, sockets):
 * the scripted agent proposes a refund and an email in ONE interrupt; the
 * refund goes to `finance` where two of rita, sam and tom must approve (one
 * reject ends it), the email to `support`; after both are decided the run
 * resumes once, only the approved (or edited) calls run, and the agent
 * reports what happened.
 */
import { describe, expect, it, vi } from "vitest";
import { EXPENSE_CLAIM } from "../../../hub/index.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { internalsOf } from "../../../hub/hub.ts";
import { REVIEWER, WAIT, authHeaders, ok, openAs, reviewHub, startAndWait } from "../review/e2e/helpers.ts";
import { isRootLifecycle } from "../../support/hub.ts";

const itemIds = (events: ProtocolEvent[]) => events.flatMap((e) => (e.method === "input.requested" ? [e.params.data.interrupt_id] : []));

async function finalMessages(hub: Awaited<ReturnType<typeof reviewHub>>, threadId: string) {
  const response = await fetch(`${hub.url}/threads/${threadId}/state`, { headers: await authHeaders("olga", ["observer"]) });
  const state = (await response.json()) as { values: Record<string, unknown> };
  return state.values["messages"] as Array<{ type: string; content: unknown; name?: string; status?: string; tool_calls?: Array<{ name: string; args: Record<string, unknown> }> }>;
}

describe("expense-approval demo", () => {
  it("two of three approve the refund, support edits the email: one resume, both tools run with what was approved", async () => {
    const hub = await reviewHub();
    const [rita, sam, tom, sid] = await Promise.all(["rita", "sam", "tom", "sid"].map((sub) => openAs(hub, sub, REVIEWER)));
    for (const finance of [rita!, sam!, tom!]) ok(await finance.request("queue.subscribe", { queue: "finance" }));
    ok(await sid!.request("queue.subscribe", { queue: "support" }));
    const { operator, ids } = await startAndWait(hub, "exp-1", "expense-approval", {});
    const [interruptId] = ids;
    await vi.waitFor(() => expect(itemIds(sid!.events)).toEqual([`${interruptId}.1`]), WAIT);
    for (const finance of [rita!, sam!, tom!]) await vi.waitFor(() => expect(itemIds(finance.events)).toEqual([`${interruptId}.0`]), WAIT);
    // The email's reviewer is no finance candidate.
    expect(await sid!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "approve" } }, { thread_id: "exp-1" })).toMatchObject({ error: "permission_denied" });

    const edited = { type: "edit", edited_action: { name: "send_email", args: { to: "ada@example.com", subject: "Your refund for order A-1027", body: "Refund on its way." } } };
    expect(ok(await sid!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.1`, response: edited }, { thread_id: "exp-1" }))).toMatchObject({ resumed: false });
    expect(ok(await rita!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "approve" } }, { thread_id: "exp-1" }))).toMatchObject({ resumed: false });
    // One approval of two: the run still waits; the other finance reviewers see the progress.
    expect(await internalsOf(hub).store.listRuns("exp-1")).toHaveLength(1);
    await vi.waitFor(
      () =>
        expect(tom!.events.find((e) => e.method === "input.voted")).toMatchObject({
          params: { data: { interrupt_id: `${interruptId}.0`, verdict: "approve", progress: { approved: 1, required: 2, approvers: ["rita (token)"] } } },
        }),
      WAIT,
    );
    expect(ok(await sam!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "approve" } }, { thread_id: "exp-1" }))).toMatchObject({ resumed: true });
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(await internalsOf(hub).store.listRuns("exp-1")).toHaveLength(2);

    const messages = await finalMessages(hub, "exp-1");
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "tool", "ai"]);
    expect(messages[0]?.content).toBe(EXPENSE_CLAIM);
    // The AI message carries the args that ran: the edited email.
    expect(messages[1]?.tool_calls?.map((c) => [c.name, c.args])).toEqual([
      ["issue_refund", { order: "A-1027", amount: 120, currency: "EUR", reason: "arrived broken" }],
      ["send_email", edited.edited_action.args],
    ]);
    expect(messages.slice(2, 4).map((m) => [m.name, m.status, m.content])).toEqual([
      ["issue_refund", "success", "Refunded 120 EUR on order A-1027 (refund R-A-1027)"],
      ["send_email", "success", 'Email "Your refund for order A-1027" sent to ada@example.com'],
    ]);
    expect(messages[4]?.content).toBe('Done. Refund: Refunded 120 EUR on order A-1027 (refund R-A-1027). Email: Email "Your refund for order A-1027" sent to ada@example.com.');
    // tom never voted: the item is decided, his late vote is refused.
    expect(await tom!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "approve" } }, { thread_id: "exp-1" })).toMatchObject({ type: "error", error: "already_answered" });
  });

  it("a rejected refund keeps the approved email: the email runs, the refund is answered as rejected", async () => {
    const hub = await reviewHub();
    const [rita, sid] = await Promise.all(["rita", "sid"].map((sub) => openAs(hub, sub, REVIEWER)));
    const { operator, ids } = await startAndWait(hub, "exp-2", "expense-approval", {});
    const [interruptId] = ids;
    ok(await sid!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.1`, response: { type: "approve" } }, { thread_id: "exp-2" }));
    // A reject ends the quorum (rejectEnds defaults to true).
    expect(ok(await rita!.request("input.respond", { namespace: [], interrupt_id: `${interruptId}.0`, response: { type: "reject", message: "receipt missing" } }, { thread_id: "exp-2" }))).toMatchObject({ resumed: true });
    await operator.waitForEvent(isRootLifecycle("completed"));
    const messages = await finalMessages(hub, "exp-2");
    const tools = messages.filter((m) => m.type === "tool").map((m) => [m.name, m.status, m.content]);
    expect(tools).toEqual([
      ["issue_refund", "error", "rejected by the reviewer: receipt missing"],
      ["send_email", "success", 'Email "Your refund for order A-1027" sent to ada@example.com'],
    ]);
    expect(messages.at(-1)?.content).toBe('Done. Refund: not done — rejected by the reviewer: receipt missing. Email: Email "Your refund for order A-1027" sent to ada@example.com.');
  });
});
