/**
 * Review timers: an item's explicit expiry policy, its escalation steps and
 * its reminders, as pure functions of (item, now). Each backend calls
 * fireDue inside its atomic section and stores the item it returns — with
 * the step counters advanced and `nextTimerAt` moved on — so a step fires
 * once however many nodes tick, and a restarted node continues from the
 * stored step. A leaf module: policy.ts and transitions.ts build on it.
 */
import type { AuditEntry, ExpiredItem, ExpiryPolicy, FiredTimer, ReviewItem, Routing } from "./types.ts";

/** Reminders an item gets at most, whatever its `remind.max`. */
export const MAX_REMINDERS = 1000;
/** Shortest reminder interval: a reminder is an event to every subscriber and webhook. */
export const MIN_REMIND_EVERY_MS = 1000;
export const MAX_ESCALATION_STEPS = 10;
/** The denial's message when `deny` names no reason. */
export const DEFAULT_DENY_REASON = "the review expired without an answer";

function iso(now: number): string {
  return new Date(now).toISOString();
}

function pending(item: ReviewItem): boolean {
  return item.status === "open" || item.status === "claimed";
}

/** The item's expiry policy, `{ response }` read as `default`; undefined when it has none. */
export function expiryPolicyOf(routing: Routing): ExpiryPolicy | undefined {
  const policy = routing.onExpire;
  if (policy === undefined) return undefined;
  if ("action" in policy) return policy;
  return { action: "default", response: policy.response };
}

/** Whether the item stays pending (and answerable) past its deadline. */
export function keepsPending(item: ReviewItem): boolean {
  return expiryPolicyOf(item.routing)?.action === "keep";
}

/** Whether the deadline passed, whatever the policy. */
function pastDeadline(item: ReviewItem, now: number): boolean {
  return item.expiresAt !== null && Date.parse(item.expiresAt) <= now;
}

/** Whether a pending item with a `keep` policy is past its deadline (wire `overdue`). */
export function isOverdue(item: ReviewItem, now: number): boolean {
  return pending(item) && keepsPending(item) && pastDeadline(item, now);
}

/** What a `deny` resumes the run with (see denialValue). */
export type DenialValue = { type: "reject"; message: string; expired: true } | { type: "ignore"; args: null; message: string; expired: true };

/**
 * What a `deny` resumes the run with: a rejection in the shape of the
 * human-in-the-loop middleware's reject decision, marked as the expiry's —
 * for an action of an Agent Inbox interrupt, its `ignore` response (Agent
 * Inbox has no reject), so the one resume still speaks the interrupt's shape.
 */
export function denialValue(policy: Extract<ExpiryPolicy, { action: "deny" }>, item?: Pick<ReviewItem, "action">): DenialValue {
  const message = policy.reason ?? DEFAULT_DENY_REASON;
  if (item?.action?.format === "agent-inbox") return { type: "ignore", args: null, message, expired: true };
  return { type: "reject", message, expired: true };
}

/** The value an expired item resumes its run with, or undefined when it resumes nothing. */
export function expiryValue(item: ReviewItem): { value: unknown } | undefined {
  const policy = expiryPolicyOf(item.routing);
  if (policy?.action === "default") return { value: policy.response };
  if (policy?.action === "deny") return { value: denialValue(policy, item) };
  return undefined;
}

/** The pending item expired by its policy at `now`; undefined when not due or kept pending. */
export function expire(item: ReviewItem, now: number): { expired: ExpiredItem; audit: AuditEntry[] } | undefined {
  if (!pending(item) || !pastDeadline(item, now)) return undefined;
  const policy = expiryPolicyOf(item.routing);
  if (policy?.action === "keep") return undefined;
  const next: ReviewItem = { ...item, status: "expired", claim: null };
  let action: ExpiredItem["action"];
  let detail: Record<string, unknown>;
  if (policy === undefined) {
    action = "none";
    detail = { action };
  } else if (policy.action === "default") {
    action = "default_response";
    detail = { action, response: policy.response };
  } else {
    action = "deny";
    detail = { action, value: denialValue(policy, item) };
  }
  return { expired: { item: next, action }, audit: [{ interruptId: item.interruptId, at: iso(now), kind: "expired", detail }] };
}

/**
 * When the item's next timer is due, were it pending: its deadline (a `keep`
 * item's only until noted overdue), its next escalation step (counted from
 * creation), its next reminder (from the last one, or creation). Independent
 * of the status: stores look at it for pending items only.
 */
export function nextTimerOf(item: ReviewItem): string | null {
  let next = Number.POSITIVE_INFINITY;
  if (item.expiresAt !== null && !(keepsPending(item) && item.overdueAt !== null)) next = Date.parse(item.expiresAt);
  const created = Date.parse(item.createdAt);
  const step = item.routing.escalation?.[item.escalationStep];
  if (step !== undefined) next = Math.min(next, created + step.afterMs);
  const remind = item.routing.remind;
  if (remind !== undefined && item.remindersSent < Math.min(remind.max ?? MAX_REMINDERS, MAX_REMINDERS)) {
    next = Math.min(next, Date.parse(item.remindedAt ?? item.createdAt) + remind.everyMs);
  }
  return Number.isFinite(next) ? iso(next) : null;
}

function union(current: readonly string[], added: readonly string[] | undefined): string[] {
  return [...new Set([...current, ...(added ?? [])])];
}

/**
 * The routing after an escalation step: the step's queue replaces the
 * item's; its users and roles are added to the candidates (who could answer
 * still can, and a claim stays valid). Empty candidate lists already mean
 * every reviewer of the tenant, so they stay empty.
 */
export function escalatedRouting(routing: Routing, step: NonNullable<Routing["escalation"]>[number]): Routing {
  const everyone = routing.users.length === 0 && routing.roles.length === 0;
  return {
    ...routing,
    queue: step.queue ?? routing.queue,
    users: everyone ? [] : union(routing.users, step.users),
    roles: everyone ? [] : union(routing.roles, step.roles),
  };
}

/**
 * Fires what is due at `now` on a pending item, in order: its expiry (then
 * nothing else — a final item needs no escalation or reminder); else a `keep`
 * deadline noted once (`overdue`), every escalation step now due (after a
 * restart several may be), and one reminder however many intervals passed.
 * Undefined when nothing is due (and the stored nextTimerAt is right).
 */
export function fireDue(item: ReviewItem, now: number): { next: ReviewItem; audit: AuditEntry[]; fired: FiredTimer[] } | undefined {
  if (!pending(item)) return undefined;
  const expired = expire(item, now);
  if (expired !== undefined) {
    const next = { ...expired.expired.item, nextTimerAt: nextTimerOf(expired.expired.item) };
    return { next, audit: expired.audit, fired: [{ kind: "expired", action: expired.expired.action }] };
  }
  const at = iso(now);
  const id = item.interruptId;
  const audit: AuditEntry[] = [];
  const fired: FiredTimer[] = [];
  let next = item;
  if (keepsPending(item) && pastDeadline(item, now) && item.overdueAt === null) {
    next = { ...next, overdueAt: at };
    audit.push({ interruptId: id, at, kind: "overdue", detail: { expiresAt: item.expiresAt, action: "keep" } });
    fired.push({ kind: "overdue" });
  }
  const steps = item.routing.escalation ?? [];
  const created = Date.parse(item.createdAt);
  for (let step = steps[next.escalationStep]; step !== undefined && created + step.afterMs <= now; step = steps[next.escalationStep]) {
    const { queue, users, roles } = next.routing;
    const routing = escalatedRouting(next.routing, step);
    next = { ...next, routing, escalationStep: next.escalationStep + 1 };
    const to = { queue: routing.queue, users: routing.users, roles: routing.roles };
    audit.push({ interruptId: id, at, kind: "escalated", detail: { step: next.escalationStep, steps: steps.length, from: { queue, users, roles }, to } });
    fired.push({ kind: "escalated", step: next.escalationStep, from: { queue, users, roles } });
  }
  const remind = item.routing.remind;
  const max = remind === undefined ? 0 : Math.min(remind.max ?? MAX_REMINDERS, MAX_REMINDERS);
  if (remind !== undefined && next.remindersSent < max && Date.parse(next.remindedAt ?? next.createdAt) + remind.everyMs <= now) {
    next = { ...next, remindersSent: next.remindersSent + 1, remindedAt: at };
    audit.push({ interruptId: id, at, kind: "reminded", detail: { count: next.remindersSent, max } });
    fired.push({ kind: "reminded", count: next.remindersSent });
  }
  const nextTimerAt = nextTimerOf(next);
  // Nothing due, but a stored time that says otherwise is corrected, so the hub's timer does not spin on it.
  if (fired.length === 0) return nextTimerAt === item.nextTimerAt ? undefined : { next: { ...item, nextTimerAt }, audit, fired };
  return { next: { ...next, nextTimerAt }, audit, fired };
}

/** The timer counters of an item as one stored JSON value (column `timers_json`); `nextTimerAt` has its own column. */
export interface TimerState {
  escalationStep: number;
  remindersSent: number;
  remindedAt: string | null;
  overdueAt: string | null;
}

export function timersOf(item: ReviewItem): TimerState {
  return { escalationStep: item.escalationStep, remindersSent: item.remindersSent, remindedAt: item.remindedAt, overdueAt: item.overdueAt };
}

/** The counters from their stored JSON; a row stored before timers (null) has fired none. */
export function readTimers(stored: unknown): TimerState {
  const s = typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>) : {};
  const count = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  const time = (v: unknown) => (typeof v === "string" ? v : null);
  return { escalationStep: count(s["escalationStep"]), remindersSent: count(s["remindersSent"]), remindedAt: time(s["remindedAt"]), overdueAt: time(s["overdueAt"]) };
}
