/**
 * The `expense-approval` demo end to end through a real hub (JWT, sockets):
 * the scripted agent proposes a refund and an email in ONE interrupt; the
 * refund goes to `finance` where two of rita, sam and tom must approve (one
 * reject ends it), the email to `support`; after both are decided the run
 * resumes once, only the approved calls run, and the agent reports what
 * happened.
 */
import { describe, expect, it } from "vitest";
import { REVIEWER, authHeaders, ok, openAs, reviewHub, startAndWait } from "../review/e2e/helpers.ts";
import { isRootLifecycle } from "../../support/hub.ts";

async function finalMessages(hub: Awaited<ReturnType<typeof reviewHub>>, threadId: string) {
  const response = await fetch(`${hub.url}/threads/${threadId}/state`, { headers: await authHeaders("olga", ["observer"]) });
  const state = (await response.json()) as { values: Record<string, unknown> };
  return state.values["messages"] as Array<{ type: string; content: unknown; name?: string; status?: string; tool_calls?: Array<{ name: string; args: Record<string, unknown> }> }>;
}

describe("expense-approval demo", () => {
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
