/**
 * The web app's words for payloads (client/web/src/format.ts): every demo's
 * question reads as a sentence in the inbox, an Agent Inbox request as a
 * call, any other payload as its fields in words — never raw JSON.
 */
import { describe, expect, it } from "vitest";
import { peopleOf } from "../../client/web/src/components/people.tsx";
import { countdown, progressText, requestActions, summarize, words } from "../../client/web/src/format.ts";
import { groupActions } from "../../client/web/src/views/inbox.tsx";
import { refusalText } from "../../client/web/src/views/item.tsx";
import { HubClientError } from "../../client/index.ts";
import { REVIEW_DRAFT } from "../../hub/index.ts";

describe("deadlines", () => {
  it("counts down, then says expired — or overdue for an item kept pending past its deadline", () => {
    expect(countdown(10_000, 0)).toBe("in 10 s");
    expect(countdown(0, 5_000)).toBe("expired");
    expect(countdown(0, 5_000, "overdue")).toBe("overdue");
    expect(countdown(null, 0)).toBe("");
  });
});

describe("per-action items", () => {
  it("shows a human-in-the-loop tool call as a call, and a whole request as its calls", () => {
    const refund = { name: "issue_refund", args: { order: "A-1027", amount: 120 } };
    const email = { name: "send_email", args: { to: "ada@example.com" } };
    expect(summarize({ action_requests: [refund], review_configs: [] })).toBe('issue_refund(order: "A-1027", amount: 120)');
    expect(summarize({ actionRequests: [email], reviewConfigs: [] })).toBe('send_email(to: "ada@example.com")');
    expect(summarize({ action_requests: [refund, email], review_configs: [] })).toBe('2 actions: issue_refund(order: "A-1027", amount: 120); send_email(to: "ada@example.com")');
  });

  it("lists the actions of one interrupt together, in action order, where the first of them sorts", () => {
    const action = (interrupt_id: string, index: number) => ({ interrupt_id, index, count: 2, name: `a${index}`, format: "hitl" as const, allowed: ["approve"] });
    const rows = [
      { id: "x.1", threadId: "t1", action: action("x", 1) },
      { id: "plain", threadId: "t1" },
      { id: "y.0", threadId: "t2", action: action("y", 0) },
      { id: "x.0", threadId: "t1", action: action("x", 0) },
      { id: "x.0-other-thread", threadId: "t9", action: action("x", 0) },
    ];
    expect(groupActions(rows).map((r) => r.id)).toEqual(["x.0", "x.1", "plain", "y.0", "x.0-other-thread"]);
  });
});

describe("review workflow words", () => {
  it("a quorum's progress: 2 of 3 approved: Rita, Sam (with the stage and who rejected)", () => {
    const progress = { approved: 2, rejected: 0, required: 3, approvers: ["Rita", "Sam"], rejecters: [], stage: 0, stages: 1, stage_name: null };
    expect(progressText(progress)).toBe("2 of 3 approved: Rita, Sam");
    expect(progressText({ ...progress, approved: 0, approvers: [], rejected: 1, rejecters: ["Tom"], stage: 1, stages: 2, stage_name: "managers" })).toBe("0 of 3 approved · stage 2 of 2 (managers) · rejected by Tom");
  });

  it("a stale_payload refusal says the item changed and that the answer was kept", () => {
    const text = refusalText(new HubClientError("stale_payload", "interrupt i1 changed since it was read"), Date.now());
    expect(text).toMatch(/^This item changed since you opened it .* Your answer was not sent; it is still below\. Reload/);
  });
});

describe("summarize", () => {
  it("reads every demo's question", () => {
    // review: the start of its draft.
    expect(summarize({ kind: "review", draft: REVIEW_DRAFT }, 60)).toBe("Dear team, the quarterly release is ready for review. It…");
    // parallel-review: which reviewer it is for.
    expect(summarize({ kind: "review", who: "r1" })).toBe("Review by r1");
    // the SDK fixtures' research agent: its question.
    expect(summarize({ kind: "approve", question: "Publish the report?" })).toBe("Publish the report?");
  });

  it("shows an Agent Inbox request as a call, alone or in its one-element list", () => {
    const request = {
      action_request: { action: "send_email", args: { to: "ada@example.com", subject: "Launch", cc: [], attachments: ["a", "b"], draft: { body: "…" } } },
      config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
      description: "Send the launch email?",
    };
    const call = 'send_email(to: "ada@example.com", subject: "Launch", cc: [], attachments: [2], draft: {…})';
    expect(summarize(request)).toBe(call);
    expect(summarize([request])).toBe(call);
    expect(summarize({ action_request: { action: "noop" } })).toBe("noop()");
  });

  it("puts other payloads in words: a kind, its facts, text; never JSON", () => {
    expect(summarize({ kind: "refund_request", amount: 30, currency: "EUR", review: { queue: "x" } })).toBe("Refund request · amount 30 · currency EUR");
    expect(summarize({ needsApproval: true, items: [1, 2, 3], meta: { a: 1 } })).toBe("Needs approval true · items [3] · meta {…}");
    expect(summarize({ title: "Ship it?", text: "long text" })).toBe("Ship it?");
    expect(summarize({ body: "  Hello\n\n  world  " })).toBe("Hello world");
    expect(summarize("Approve the plan?")).toBe("Approve the plan?");
    expect(summarize([{ question: "A?" }, { question: "B?" }])).toBe("2 requests: A?; B?");
    expect(summarize(42)).toBe("Value 42");
    expect(summarize(null)).toBe("Value null");
    expect(summarize({})).toBe("Empty question");
    expect(summarize("")).toBe("Empty question");
  });

  it("clips to the width asked for, on a word", () => {
    const line = summarize({ question: "word ".repeat(100) }, 20);
    expect(line.length).toBeLessThanOrEqual(20);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("words", () => {
  it("turns keys into words", () => {
    expect(words("send_email")).toBe("Send email");
    expect(words("needsApproval")).toBe("Needs approval");
    expect(words("review")).toBe("Review");
  });
});

describe("what the page prints from others is escaped", () => {
  it("control and bidi characters in a payload or a presence name show as escapes", () => {
    expect(summarize("Approve \u202etxt.exe\u001b[31m?")).toBe("Approve \\u202etxt.exe\\x1b[31m?");
    expect(peopleOf([{ clientId: 1, state: { user: { sub: "eve", name: "Eve\u202e\u0007" } } }])).toEqual([{ sub: "eve", name: "Eve\\u202e\\x07" }]);
  });
});

describe("the run view's questions", () => {
  it("a multi-action request is known by its payload: its actions by name, each answered as its own item", () => {
    const hitl = { action_requests: [{ name: "issue_refund", args: {} }, { name: "send_email", args: {} }], review_configs: [{ action_name: "issue_refund", allowed_decisions: ["approve"] }] };
    expect(requestActions(hitl)).toEqual(["issue_refund", "send_email"]);
    expect(requestActions({ actionRequests: [{ name: "a", args: {} }], reviewConfigs: [] })).toEqual(["a"]);
    expect(requestActions([{ action_request: { action: "write", args: {} }, config: { allow_accept: true } }])).toEqual(["write"]);
    // Any other question is asked as itself.
    expect(requestActions({ question: "ok?" })).toBeUndefined();
    expect(requestActions({ action_requests: [{ name: "a" }] })).toBeUndefined();
    expect(requestActions(["a", "b"])).toBeUndefined();
    expect(requestActions([])).toBeUndefined();
  });
});
