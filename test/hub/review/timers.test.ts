/** The pure timer rules (hub/review/timers.ts) that every store runs in its atomic section. */
import { describe, expect, it } from "vitest";
import { denialValue, expiryPolicyOf, isOverdue, nextTimerOf } from "../../../hub/review/index.ts";
import { escalatedRouting, fireDue } from "../../../hub/review/timers.ts";
import { T0, iso, item, routing } from "./fixtures.ts";

const MIN = 60_000;

describe("review timers", () => {
  it("reads `{ response }` as default and leaves explicit policies as they are", () => {
    expect(expiryPolicyOf(routing({ onExpire: { response: false } }))).toEqual({ action: "default", response: false });
    expect(expiryPolicyOf(routing({ onExpire: { action: "keep" } }))).toEqual({ action: "keep" });
    expect(expiryPolicyOf(routing())).toBeUndefined();
  });

  it("denies in the interrupt's shape: a reject decision, or Agent Inbox's ignore", () => {
    expect(denialValue({ action: "deny" })).toEqual({ type: "reject", message: "the review expired without an answer", expired: true });
    const action = { interruptId: "i", index: 0, count: 2, name: "send_email", format: "agent-inbox" as const, allowed: ["accept", "ignore"] };
    expect(denialValue({ action: "deny", reason: "late" }, { action })).toEqual({ type: "ignore", args: null, message: "late", expired: true });
    expect(denialValue({ action: "deny", reason: "late" }, { action: { ...action, format: "hitl" } })).toEqual({ type: "reject", message: "late", expired: true });
  });

  it("schedules the earliest of deadline, next step and next reminder; none once all have fired", () => {
    const r = routing({ expiresAt: iso(T0 + 60 * MIN), escalation: [{ afterMs: 10 * MIN, queue: "b" }], remind: { everyMs: 25 * MIN, max: 1 } });
    expect(nextTimerOf(item({ routing: r, expiresAt: iso(T0 + 60 * MIN) }))).toBe(iso(T0 + 10 * MIN));
    expect(nextTimerOf(item({ routing: r, expiresAt: iso(T0 + 60 * MIN), escalationStep: 1 }))).toBe(iso(T0 + 25 * MIN));
    expect(nextTimerOf(item({ routing: r, expiresAt: iso(T0 + 60 * MIN), escalationStep: 1, remindersSent: 1 }))).toBe(iso(T0 + 60 * MIN));
    const kept = routing({ onExpire: { action: "keep" } });
    expect(nextTimerOf(item({ routing: kept, expiresAt: iso(T0 + MIN), overdueAt: iso(T0 + MIN) }))).toBeNull();
    expect(nextTimerOf(item({ routing: routing({ remind: { everyMs: MIN, max: 5000 } }), remindersSent: 1000 }))).toBeNull();
  });

  it("is overdue only while pending, with keep, past the deadline", () => {
    const kept = { routing: routing({ onExpire: { action: "keep" } }), expiresAt: iso(T0 + MIN) };
    expect(isOverdue(item(kept), T0 + MIN)).toBe(true);
    expect(isOverdue(item(kept), T0 + MIN - 1)).toBe(false);
    expect(isOverdue(item({ ...kept, status: "answered" }), T0 + MIN)).toBe(false);
    expect(isOverdue(item({ expiresAt: iso(T0 + MIN) }), T0 + 2 * MIN)).toBe(false);
  });

  it("widens candidates, moves the queue, keeps an everyone-item open to everyone", () => {
    expect(escalatedRouting(routing({ users: ["a"], roles: ["r"] }), { afterMs: 1, queue: "q2", users: ["a", "b"], roles: ["s"] })).toMatchObject({ queue: "q2", users: ["a", "b"], roles: ["r", "s"] });
    expect(escalatedRouting(routing(), { afterMs: 1, roles: ["manager"] })).toMatchObject({ queue: "default", users: [], roles: [] });
  });

  it("fires nothing on a final item, and corrects a stored next time that says otherwise", () => {
    const r = routing({ escalation: [{ afterMs: MIN, queue: "b" }] });
    expect(fireDue(item({ routing: r, status: "answered", nextTimerAt: iso(T0 + MIN) }), T0 + 2 * MIN)).toBeUndefined();
    // Stored as due now, though nothing is: the store is told the right time, and nothing fires.
    const stale = item({ routing: r, escalationStep: 1, nextTimerAt: iso(T0) });
    expect(fireDue(stale, T0 + 2 * MIN)).toEqual({ next: { ...stale, nextTimerAt: null }, audit: [], fired: [] });
    expect(fireDue({ ...stale, nextTimerAt: null }, T0 + 2 * MIN)).toBeUndefined();
  });

  it("expires a claimed item by its policy and drops the claim", () => {
    const claimed = item({ status: "claimed", claim: { by: { sub: "a", name: "A" }, until: iso(T0 + 99 * MIN) }, routing: routing({ onExpire: { action: "deny" } }), expiresAt: iso(T0 + MIN) });
    const done = fireDue(claimed, T0 + MIN);
    expect(done?.fired).toEqual([{ kind: "expired", action: "deny" }]);
    expect(done?.next).toMatchObject({ status: "expired", claim: null });
  });
});
