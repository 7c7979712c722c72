/**
 * Who may answer: a non-candidate, an observer, another tenant and the run's
 * own starter are refused with permission_denied and the item stays open for
 * the right reviewer. Observers never start or cancel runs either.
 */
import { describe, expect, it } from "vitest";
import { OPERATOR, REVIEWER, authHeaders, isRootLifecycle, itemStatus, ok, openAs, reviewHub, startAndWait } from "./helpers.ts";
import { internalsOf } from "../../../../hub/hub.ts";

const routedToCarol = { review: { users: ["carol"], queue: "legal" } };

async function answerRest(url: string, id: string, headers: Record<string, string>, response: unknown) {
  const res = await fetch(`${url}/reviews/${id}/answer`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ response }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("review authorization", () => {
  it("non-candidate, observer, other tenant, self-approver: permission_denied, and the item stays open", async () => {
    const hub = await reviewHub();
    const threadId = "auth-1";
    // olive starts the run and is also a reviewer.
    const { operator, ids } = await startAndWait(hub, threadId, "gate", routedToCarol, { starter: "olive" });
    const [id] = ids;
    const respond = { namespace: [], interrupt_id: id, response: "yes" };

    const dave = await openAs(hub, "dave", REVIEWER);
    expect(await dave.request("input.respond", respond, { thread_id: threadId })).toMatchObject({ type: "error", error: "permission_denied" });
    const olga = await openAs(hub, "olga", ["observer"]);
    expect(await olga.request("input.respond", respond, { thread_id: threadId })).toMatchObject({ type: "error", error: "permission_denied" });
    expect(await olga.request("input.claim", { interrupt_id: id }, { thread_id: threadId })).toMatchObject({ type: "error", error: "permission_denied" });
    // Another tenant: the thread does not exist for them; the item by id is refused.
    const gus = await openAs(hub, "gus", REVIEWER, "globex");
    expect(await gus.request("input.respond", respond, { thread_id: threadId })).toMatchObject({ type: "error", error: "not_found" });
    expect(await answerRest(hub.url, id!, await authHeaders("gus", REVIEWER, "globex"), "yes")).toMatchObject({ status: 403, body: { error: "permission_denied" } });
    // The starter, even as a candidate reviewer, may not approve their own run.
    const olive = await openAs(hub, "olive", [...OPERATOR, "reviewer"]);
    const selfHub = await olive.request("input.respond", respond, { thread_id: threadId });
    expect(selfHub).toMatchObject({ type: "error", error: "permission_denied" });

    expect(await itemStatus(hub, id!)).toBe("open");
    expect(await internalsOf(hub).store.listRuns(threadId)).toHaveLength(1);

    const carol = await openAs(hub, "carol", REVIEWER);
    expect(ok(await carol.request("input.respond", respond, { thread_id: threadId }))).toMatchObject({ resumed: true });
    await operator.waitForEvent(isRootLifecycle("completed"));

    const audit = await (await fetch(`${hub.url}/reviews/${id}`, { headers: await authHeaders("olga", ["observer"]) })).json() as { status: string; audit: Array<{ kind: string; by?: { sub: string }; reason?: string }> };
    expect(audit.status).toBe("answered");
    const rejected = audit.audit.filter((a) => a.kind === "rejected").map((a) => [a.by?.sub, a.reason]);
    expect(rejected).toEqual(expect.arrayContaining([["dave", "permission_denied"], ["olive", "permission_denied"]]));
    expect(audit.audit.map((a) => a.kind)).toEqual(expect.arrayContaining(["requested", "rejected", "answered"]));
  });

  it("allowSelfApproval lets the starter answer", async () => {
    const hub = await reviewHub();
    const { ids } = await startAndWait(hub, "auth-self", "gate", { review: { allowSelfApproval: true } }, { starter: "olive" });
    const olive = await openAs(hub, "olive", [...OPERATOR, "reviewer"]);
    expect(ok(await olive.request("input.respond", { namespace: [], interrupt_id: ids[0], response: "mine" }, { thread_id: "auth-self" }))).toMatchObject({ resumed: true });
  });

  it("observers never start, cancel or resume; reviewers without operator never start or cancel", async () => {
    const hub = await reviewHub();
    const olga = await openAs(hub, "olga", ["observer"]);
    expect(await olga.request("run.start", { assistant_id: "gate", input: {} }, { thread_id: "auth-roles" })).toMatchObject({ type: "error", error: "permission_denied" });
    const { ids } = await startAndWait(hub, "auth-roles", "gate", {});
    expect(await olga.request("run.cancel", {}, { thread_id: "auth-roles" })).toMatchObject({ type: "error", error: "permission_denied" });
    const rita = await openAs(hub, "rita", REVIEWER);
    expect(await rita.request("run.start", { assistant_id: "gate", input: null }, { thread_id: "auth-roles" })).toMatchObject({ type: "error", error: "permission_denied" });
    expect(await rita.request("run.cancel", {}, { thread_id: "auth-roles" })).toMatchObject({ type: "error", error: "permission_denied" });
    // An operator who is no reviewer cannot answer by starting a run with the answer as input.
    const otto = await openAs(hub, "otto", OPERATOR);
    expect(await otto.request("run.start", { assistant_id: "gate", input: "approve" }, { thread_id: "auth-roles" })).toMatchObject({ type: "error", error: "permission_denied" });
    expect(await itemStatus(hub, ids[0]!)).toBe("open");
    expect(await internalsOf(hub).store.listRuns("auth-roles")).toHaveLength(1);
    // With both roles it is an answer like any other.
    const both = await openAs(hub, "bea", [...OPERATOR, "reviewer"]);
    expect(ok(await both.request("run.start", { assistant_id: "gate", input: "approve" }, { thread_id: "auth-roles" }))).toMatchObject({ interrupt_ids: ids, resumed: true });
  });

  it("a response that violates review.responseSchema is invalid_argument with the message; nothing changes", async () => {
    const hub = await reviewHub();
    const schema = { type: "object", required: ["approved"], properties: { approved: { type: "boolean" } } };
    const { ids } = await startAndWait(hub, "auth-schema", "gate", { review: { responseSchema: schema } });
    const rita = await openAs(hub, "rita", REVIEWER);
    const bad = await rita.request("input.respond", { namespace: [], interrupt_id: ids[0], response: { approved: "yes" } }, { thread_id: "auth-schema" });
    expect(bad).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining("approved") });
    expect(await itemStatus(hub, ids[0]!)).toBe("open");
    expect(ok(await rita.request("input.respond", { namespace: [], interrupt_id: ids[0], response: { approved: true } }, { thread_id: "auth-schema" }))).toMatchObject({ resumed: true });
  });
});
