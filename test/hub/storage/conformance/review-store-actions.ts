/**
 * Per-action decisions in one interrupt (review conformance suite, see
 * review-store.ts): a LangChain human-in-the-loop request or an Agent Inbox
 * list becomes one item per action, each routed and validated on its own;
 * when all are decided ONE resume answers the interrupt with every decision,
 * in action order and in the interrupt's shape — decided in the store's
 * atomic section, so it holds however the answers race.
 */
import { beforeEach, expect, it } from "vitest";
import { ReviewService } from "../../../../hub/review/index.ts";
import type { InterruptRequest, ResumePolicy, ReviewEvent, ReviewServiceOptions, ReviewStore } from "../../../../hub/review/index.ts";
import { T0, alice, bob, carol, manualClock, rita } from "../../review/fixtures.ts";

function request(interruptId: string, payload: unknown, overrides: Partial<InterruptRequest> = {}): InterruptRequest {
  return { interruptId, threadId: "t1", runId: "r1", tenant: "acme", namespace: [], node: "review", payload, startedBy: "sam", ...overrides };
}

const refund = { name: "issue_refund", args: { order: "A-17", amount: 120 }, description: "Refund order A-17?" };
const email = { name: "send_email", args: { to: "ada@example.com", subject: "Your refund" }, description: "Tell the customer" };

/** The middleware's request (snake_case, as Python and the LangGraph server send it), routed per action. */
function hitl(review: unknown = { actions: { issue_refund: { queue: "finance", users: ["alice"] }, send_email: { queue: "support", users: ["bob"] } } }) {
  return {
    action_requests: [refund, email],
    review_configs: [
      { action_name: "issue_refund", allowed_decisions: ["approve", "reject"] },
      { action_name: "send_email", allowed_decisions: ["approve", "edit", "reject"], args_schema: { type: "object", required: ["to"], properties: { to: { type: "string" } } } },
    ],
    ...(review === undefined ? {} : { review }),
  };
}

export function actionTests(store: () => ReviewStore): void {
  let clock: ReturnType<typeof manualClock>;
  let events: ReviewEvent[];
  let policy: ResumePolicy;
  const service = (options: Partial<ReviewServiceOptions> = {}) =>
    new ReviewService({ store: store(), routing: { queue: "default" }, clock: clock.now, onEvent: (e) => events.push(e), resumePolicy: () => policy, ...options });

  beforeEach(() => {
    clock = manualClock();
    events = [];
    policy = "batch";
  });

  it("makes one item per action, each routed by review.actions and told to its queue", async () => {
    const reviews = service();
    const { items, created, issues } = await reviews.onInterruptRequested(request("x", hitl()));
    expect(created).toBe(true);
    expect(issues).toEqual([]);
    expect(items.map((i) => [i.interruptId, i.routing.queue, i.routing.users, i.action?.name, i.action?.index, i.action?.count])).toEqual([
      ["x.0", "finance", ["alice"], "issue_refund", 0, 2],
      ["x.1", "support", ["bob"], "send_email", 1, 2],
    ]);
    expect(items[1]?.action).toEqual({
      interruptId: "x",
      index: 1,
      count: 2,
      name: "send_email",
      format: "hitl",
      allowed: ["approve", "edit", "reject"],
      argsSchema: { type: "object", required: ["to"], properties: { to: { type: "string" } } },
    });
    // Each item's payload is a one-action request in the interrupt's shape.
    expect(items[0]?.payload).toEqual({ action_requests: [refund], review_configs: [{ action_name: "issue_refund", allowed_decisions: ["approve", "reject"] }] });
    expect(await store().getItem("x.1")).toEqual(items[1]);
    expect(await store().getItem("x")).toBeUndefined();
    expect(events.map((e) => [e.audience, e.event.method, (e.event.params.data as { interrupt_id: string }).interrupt_id])).toEqual([
      ["queue", "input.requested", "x.0"],
      ["queue", "input.requested", "x.1"],
    ]);
    // Idempotent like any item.
    expect((await reviews.onInterruptRequested(request("x", hitl()))).created).toBe(false);
    expect(await store().listItems({ tenant: "acme" })).toHaveLength(2);
  });

  it("resumes once, when the last action is decided, with the decisions in action order — a reject keeps the approval", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("x", hitl()));
    // The email (second action) is decided first.
    const first = await reviews.answer(bob, "x.1", { type: "reject", message: "wrong address" });
    expect(first.result.ok).toBe(true);
    expect(first.resume).toBeNull();
    policy = "eager"; // even eager waits for the whole interrupt
    expect(await store().takeResume("r1", "eager", T0, "early")).toBeNull();
    const last = await reviews.answer(alice, "x.0", { type: "approve" });
    expect(last.resume).toMatchObject({
      runId: "r1",
      answers: { x: { decisions: [{ type: "approve" }, { type: "reject", message: "wrong address" }] } },
      defaulted: [],
    });
    expect(Object.keys(last.resume?.answers ?? {})).toEqual(["x"]);
    expect(await store().takeResume("r1", "eager", T0, "again")).toBeNull();
    // Until the resume run applied it, a restart finds the same assembled answer.
    const [unapplied] = await store().unappliedResumes();
    expect(unapplied?.answers).toEqual(last.resume?.answers);
    await store().markApplied(last.resume!.resumeRunId, T0);
    expect(await store().unappliedResumes()).toEqual([]);
  });

  it("refuses response types the action's config does not allow, and bad edits, with invalid_argument; the item stays open", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("x", hitl()));
    const refusals = [
      await reviews.answer(alice, "x.0", { type: "edit", edited_action: { name: "issue_refund", args: { order: "A-17", amount: 1 } } }),
      await reviews.answer(alice, "x.0", "approve"),
      await reviews.answer(bob, "x.1", { type: "edit", edited_action: { name: "send_sms", args: { to: "x" } } }),
      await reviews.answer(bob, "x.1", { type: "edit", edited_action: { name: "send_email", args: { subject: "no recipient" } } }),
      await reviews.answer(bob, "x.1", { type: "edit", edited_action: { name: "send_email", args: "to=ada" } }),
      await reviews.answer(bob, "x.1", { type: "reject", message: 42 }),
    ].map((o) => o.result);
    for (const refusal of refusals) expect(refusal).toMatchObject({ ok: false, code: "invalid_argument" });
    const messages = refusals.map((r) => (r.ok ? "" : r.message));
    expect(messages[0]).toBe('action issue_refund (x.0, 1 of 2) allows approve, reject; "edit" is not one of them');
    expect(messages[1]).toMatch(/is answered with \{ type: "approve" \| "reject"/);
    expect(messages[2]).toMatch(/may change its args, not the action/);
    expect(messages[3]).toMatch(/do not match its args_schema/);
    expect(messages[4]).toMatch(/needs \{ name, args \} with args an object/);
    expect(messages[5]).toMatch(/optional message string/);
    expect((await store().getItem("x.0"))?.status).toBe("open");
    expect((await store().getItem("x.1"))?.status).toBe("open");
    expect((await store().auditOf("x.1")).map((e) => [e.kind, e.reason])).toEqual([["requested", undefined], ["rejected", "invalid_argument"]]);
    // A valid edit passes, and resumes with the edited action.
    const edited = { type: "edit", edited_action: { name: "send_email", args: { to: "ada@example.org", subject: "Your refund" } } };
    expect((await reviews.answer(bob, "x.1", edited)).result.ok).toBe(true);
    const { resume } = await reviews.answer(alice, "x.0", { decisions: [{ type: "approve" }] }); // the whole shape, one decision: unwrapped
    expect(resume?.answers).toEqual({ x: { decisions: [{ type: "approve" }, edited] } });
  });

  it("routes each action to its own candidates: the refund's reviewer cannot answer the email", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("x", hitl()));
    expect((await reviews.answer(bob, "x.0", { type: "approve" })).result).toMatchObject({ ok: false, code: "permission_denied" });
    expect((await reviews.answer(alice, "x.1", { type: "approve" })).result).toMatchObject({ ok: false, code: "permission_denied" });
    expect((await reviews.openItemsFor(alice, "*")).map((i) => i.interruptId)).toEqual(["x.0"]);
    expect((await reviews.openItemsFor(bob, "*")).map((i) => i.interruptId)).toEqual(["x.1"]);
    expect((await reviews.openItemsFor(rita, "*")).map((i) => i.interruptId)).toEqual([]);
  });

  it("Agent Inbox lists: accept / edit / response / ignore as each config allows; resumes with the list of responses", async () => {
    const reviews = service();
    const inbox = [
      { action_request: { action: "issue_refund", args: { amount: 120 } }, config: { allow_accept: true, allow_edit: true, allow_respond: false, allow_ignore: true }, description: "Refund?" },
      { action_request: { action: "send_email", args: { to: "ada@example.com" } }, config: { allow_accept: true, allow_edit: false, allow_respond: true, allow_ignore: false } },
    ];
    const { items } = await reviews.onInterruptRequested(request("ai", inbox));
    expect(items.map((i) => [i.interruptId, i.action?.format, i.action?.allowed])).toEqual([
      ["ai.0", "agent-inbox", ["accept", "edit", "ignore"]],
      ["ai.1", "agent-inbox", ["accept", "response"]],
    ]);
    expect(items[1]?.payload).toEqual([inbox[1]]);
    expect((await reviews.answer(carol, "ai.1", { type: "edit", args: { action: "send_email", args: {} } })).result).toMatchObject({ code: "invalid_argument" });
    expect((await reviews.answer(carol, "ai.1", { type: "response", args: "  " })).result).toMatchObject({ code: "invalid_argument" });
    expect((await reviews.answer(carol, "ai.0", { type: "edit", args: { action: "issue_refund", args: [] } })).result).toMatchObject({ code: "invalid_argument" });
    expect((await reviews.answer(carol, "ai.1", [{ type: "response", args: "Say sorry first" }])).result.ok).toBe(true);
    const { resume } = await reviews.answer(alice, "ai.0", { type: "edit", args: { action: "issue_refund", args: { amount: 100 } } });
    expect(resume?.answers).toEqual({
      ai: [
        { type: "edit", args: { action: "issue_refund", args: { amount: 100 } } },
        { type: "response", args: "Say sorry first" },
      ],
    });
  });

  it("the JS middleware's camelCase request resumes in camelCase", async () => {
    const reviews = service();
    const camel = {
      actionRequests: [refund, email],
      reviewConfigs: [
        { actionName: "issue_refund", allowedDecisions: ["approve", "reject"] },
        { actionName: "send_email", allowedDecisions: ["edit"] },
      ],
    };
    const { items } = await reviews.onInterruptRequested(request("c", camel));
    expect(items.map((i) => i.action?.format)).toEqual(["hitl-camel", "hitl-camel"]);
    expect((await reviews.answer(bob, "c.1", { type: "edit", edited_action: { name: "send_email", args: {} } })).result).toMatchObject({ code: "invalid_argument" });
    expect((await reviews.answer(bob, "c.1", { type: "edit", editedAction: { name: "send_email", args: { to: "b@example.com" } } })).result.ok).toBe(true);
    const { resume } = await reviews.answer(alice, "c.0", { type: "reject" });
    expect(resume?.answers).toEqual({ c: { decisions: [{ type: "reject" }, { type: "edit", editedAction: { name: "send_email", args: { to: "b@example.com" } } }] } });
  });

  it("an answer to the interrupt's own id is split into its actions, each decided on its own", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("x", hitl({ queue: "ops" })));
    expect(await reviews.answerBatch(carol, [{ interruptId: "x", value: { decisions: [{ type: "approve" }] } }])).toMatchObject({
      results: [{ interruptId: "x", result: { ok: false, code: "invalid_argument", message: expect.stringMatching(/asks about 2 actions/) } }],
      resumes: [],
    });
    const { results, resumes } = await reviews.answerBatch(carol, [{ interruptId: "x", value: { decisions: [{ type: "approve" }, { type: "approve" }] } }]);
    expect(results.map((r) => [r.interruptId, r.result.ok])).toEqual([["x.0", true], ["x.1", true]]);
    expect(resumes.map((r) => r.answers)).toEqual([{ x: { decisions: [{ type: "approve" }, { type: "approve" }] } }]);
  });

  it("racing last answers on both actions: exactly one resume, with both decisions", async () => {
    const reviews = service();
    await reviews.onInterruptRequested(request("x", hitl({ queue: "ops" })));
    const outcomes = await Promise.all([reviews.answer(alice, "x.0", { type: "approve" }), reviews.answer(bob, "x.1", { type: "approve" })]);
    expect(outcomes.map((o) => o.result.ok)).toEqual([true, true]);
    const resumes = outcomes.flatMap((o) => (o.resume ? [o.resume] : []));
    expect(resumes).toHaveLength(1);
    expect(resumes[0]?.answers).toEqual({ x: { decisions: [{ type: "approve" }, { type: "approve" }] } });
  });

  it("an action that expires with its default completes the group; one without a default holds it", async () => {
    const reviews = service();
    const review = { actions: { send_email: { expiresIn: "1m", onExpire: { response: { type: "reject", message: "nobody answered" } } }, issue_refund: { expiresIn: "2m" } } };
    await reviews.onInterruptRequested(request("x", hitl(review)));
    await reviews.onInterruptRequested(request("y", hitl(review), { runId: "r2" }));
    expect((await reviews.answer(alice, "x.0", { type: "approve" })).resume).toBeNull();
    clock.advance(60_000);
    const { resumes } = await reviews.tick();
    expect(resumes.map((r) => [r.runId, r.answers, r.defaulted])).toEqual([
      ["r1", { x: { decisions: [{ type: "approve" }, { type: "reject", message: "nobody answered" }] } }, ["x"]],
    ]);
    // y's refund expires with no default: the group can never be whole, so nothing of it resumes.
    clock.advance(60_000);
    expect((await reviews.tick()).resumes).toEqual([]);
    expect((await store().getItem("y.1"))?.resumedAt).toBeNull();
  });

  it("a plain question next to a multi-action one resumes on its own under eager", async () => {
    policy = "eager";
    const reviews = service();
    await reviews.onInterruptRequested(request("x", hitl({ queue: "ops" })));
    await reviews.onInterruptRequested(request("plain", { question: "ok?" }));
    await reviews.answer(alice, "x.0", { type: "approve" });
    expect((await reviews.answer(alice, "plain", "yes")).resume?.answers).toEqual({ plain: "yes" });
    expect((await reviews.answer(bob, "x.1", { type: "approve" })).resume?.answers).toEqual({ x: { decisions: [{ type: "approve" }, { type: "approve" }] } });
  });

  it("does not split what is not a well-formed request, and says review.actions is ignored there", async () => {
    const reviews = service();
    const noConfig = { action_requests: [refund], review_configs: [], review: { actions: { issue_refund: { queue: "finance" } } } };
    const { items, issues } = await reviews.onInterruptRequested(request("odd", noConfig));
    expect(items.map((i) => [i.interruptId, i.action])).toEqual([["odd", undefined]]);
    expect(issues.map((i) => i.path)).toEqual(["review.actions"]);
    const unknown = await reviews.onInterruptRequested(request("typo", hitl({ actions: { issue_refnud: { queue: "finance" }, send_email: { queue: "" } } })));
    expect(unknown.items.map((i) => i.routing.queue)).toEqual(["default", "default"]);
    expect(unknown.issues.map((i) => i.path)).toEqual(["review.actions.issue_refnud", "review.actions.send_email.queue"]);
  });
}
