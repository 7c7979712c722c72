/**
 * Review items as wire events (hub/protocol shapes). The hub assigns
 * `seq` / `event_id` when it appends them to the thread log; these carry the
 * thread and run ids so it knows where they go.
 */
import type { EventOf, EventParams, REVIEW_EVENT_METHODS, InputCancelledData, InputEscalatedData, InputExpiredData, InputReassignedData, InputReminderData, InputVotedData, QuorumProgressData, ReviewActionJson, ReviewInfo } from "../protocol/index.ts";
import { isQuorumItem, progressOf, type QuorumProgress, type VoteResult } from "./quorum.ts";
import { MAX_REMINDERS, denialValue, expiryPolicyOf } from "./timers.ts";
import type { ActionRef, Actor, ExpiryPolicy, ReviewItem } from "./types.ts";

export type ReviewWireEvent = EventOf<(typeof REVIEW_EVENT_METHODS)[number]>;

/** What the service reports: the event, and the item it is about (for per-subscriber authorization). */
export interface ReviewEvent {
  item: ReviewItem;
  /**
   * `queue`: for queue subscribers only — the thread's own subscribers got
   * this one from the run's projection. `all`: thread and queue subscribers.
   */
  audience: "all" | "queue";
  event: ReviewWireEvent;
  /**
   * The item before this event re-routed it (another queue, other
   * candidates): queue subscribers who saw it there hear the event too, and
   * those who see it only now get it as new (queues.ts deliverMove).
   */
  before?: ReviewItem;
}

function envelope(item: ReviewItem) {
  return { type: "event" as const, thread_id: item.threadId, run_id: item.runId };
}

function params<D>(item: ReviewItem, now: number, data: D, namespace: string[] = item.namespace): EventParams<D> {
  const p: EventParams<D> = { namespace: [...namespace], timestamp: now, data };
  if (item.node !== null) p.node = item.node;
  return p;
}

function copy(actor: Actor): Actor {
  return { sub: actor.sub, name: actor.name };
}

export function requestedEvent(item: ReviewItem, now: number): EventOf<"input.requested"> {
  const data = { interrupt_id: item.interruptId, payload: item.payload, payload_digest: item.payloadDigest };
  return { ...envelope(item), method: "input.requested", params: params(item, now, data) };
}

export function progressJson(p: QuorumProgress): QuorumProgressData {
  return {
    approved: p.approved,
    rejected: p.rejected,
    required: p.required,
    approvers: [...p.approvers],
    rejecters: [...p.rejecters],
    stage: p.stage,
    stages: p.stages,
    stage_name: p.stageName,
  };
}

export function votedEvent(item: ReviewItem, vote: VoteResult, now: number): EventOf<"input.voted"> {
  const data: InputVotedData = {
    interrupt_id: item.interruptId,
    by: copy(vote.vote.by),
    verdict: vote.vote.verdict,
    outcome: vote.outcome,
    progress: progressJson(vote.progress),
  };
  return { ...envelope(item), method: "input.voted", params: params(item, now, data) };
}

export function reassignedEvent(previous: ReviewItem, item: ReviewItem, by: Actor, delegated: boolean, reason: string | undefined, now: number): EventOf<"input.reassigned"> {
  const side = (i: ReviewItem) => ({ queue: i.routing.queue, users: [...i.routing.users], roles: [...i.routing.roles] });
  const data: InputReassignedData = { interrupt_id: item.interruptId, by: copy(by), from: side(previous), to: side(item), delegated };
  if (reason !== undefined) data.reason = reason;
  return { ...envelope(item), method: "input.reassigned", params: params(item, now, data) };
}

/** The spec sends input.answered in the root namespace; clients match interrupts by id. */
export function answeredEvent(item: ReviewItem, now: number): EventOf<"input.answered"> {
  if (item.answer === null) throw new Error(`review item ${item.interruptId} has no answer`);
  const data = { interrupt_ids: [item.interruptId], answered_by: copy(item.answer.by), answered_at: Date.parse(item.answer.at) };
  const p: EventParams<typeof data> = { namespace: [], timestamp: now, data };
  return { ...envelope(item), method: "input.answered", params: p };
}

export function claimedEvent(item: ReviewItem, now: number): EventOf<"input.claimed"> {
  if (item.claim === null) throw new Error(`review item ${item.interruptId} has no claim`);
  const data = { interrupt_id: item.interruptId, claimed_by: copy(item.claim.by), expires_at: Date.parse(item.claim.until) };
  return { ...envelope(item), method: "input.claimed", params: params(item, now, data) };
}

/** `by` is who released it, or the former holder when the lease lapsed. */
export function releasedEvent(item: ReviewItem, by: Actor, now: number): EventOf<"input.released"> {
  return { ...envelope(item), method: "input.released", params: params(item, now, { interrupt_id: item.interruptId, released_by: copy(by) }) };
}

export function expiredEvent(item: ReviewItem, action: InputExpiredData["action"], now: number): EventOf<"input.expired"> {
  // The deadline itself, not when tick() noticed it.
  const expiredAt = item.expiresAt === null ? now : Date.parse(item.expiresAt);
  const data: InputExpiredData = { interrupt_id: item.interruptId, expired_at: expiredAt, action };
  const policy = expiryPolicyOf(item.routing);
  if (action === "deny" && policy?.action === "deny") data.reason = denialValue(policy).message;
  return { ...envelope(item), method: "input.expired", params: params(item, now, data) };
}

export function cancelledEvent(item: ReviewItem, reason: string, now: number): EventOf<"input.cancelled"> {
  const data: InputCancelledData = { interrupt_id: item.interruptId, cancelled_at: now, reason };
  return { ...envelope(item), method: "input.cancelled", params: params(item, now, data) };
}

/** An escalation step fired: `step` of `steps`, from the routing `from` to the item's current one. */
export function escalatedEvent(item: ReviewItem, step: number, from: { queue: string; users: string[]; roles: string[] }, now: number): EventOf<"input.escalated"> {
  const { queue, users, roles } = item.routing;
  const data: InputEscalatedData = {
    interrupt_id: item.interruptId,
    step,
    steps: item.routing.escalation?.length ?? step,
    queue,
    users: [...users],
    roles: [...roles],
    from: { queue: from.queue, users: [...from.users], roles: [...from.roles] },
    escalated_at: now,
  };
  return { ...envelope(item), method: "input.escalated", params: params(item, now, data) };
}

export function reminderEvent(item: ReviewItem, count: number, now: number): EventOf<"input.reminder"> {
  const data: InputReminderData = {
    interrupt_id: item.interruptId,
    reminder: count,
    max: Math.min(item.routing.remind?.max ?? MAX_REMINDERS, MAX_REMINDERS),
    reminded_at: now,
    expires_at: item.expiresAt === null ? null : Date.parse(item.expiresAt),
    overdue: item.overdueAt !== null,
  };
  return { ...envelope(item), method: "input.reminder", params: params(item, now, data) };
}

/**
 * The `review` envelope field of a queue copy of `input.requested`: routing
 * facts an inbox lists without asking for each item (hub/protocol ReviewInfo).
 */
export function reviewInfo(item: ReviewItem, assistantId: string | null): ReviewInfo {
  const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));
  return {
    queue: item.routing.queue,
    assistant_id: assistantId,
    created_at: ms(item.createdAt),
    expires_at: ms(item.expiresAt),
    users: [...item.routing.users],
    roles: [...item.routing.roles],
    has_default: expiryPolicyOf(item.routing)?.action === "default",
    ...onExpireJson(item),
    ...(item.routing.responseSchema === undefined ? {} : { response_schema: item.routing.responseSchema }),
    payload_digest: item.payloadDigest,
    ...(isQuorumItem(item) ? { quorum: quorumJson(item) } : {}),
    ...(item.action === undefined ? {} : { action: actionJson(item.action) }),
  };
}

/** An item's place in its multi-action interrupt, on the wire (queue copies and REST). */
export function actionJson(action: ActionRef): ReviewActionJson {
  return {
    interrupt_id: action.interruptId,
    index: action.index,
    count: action.count,
    name: action.name,
    format: action.format,
    allowed: [...action.allowed],
    ...(action.argsSchema === undefined ? {} : { args_schema: action.argsSchema }),
  };
}

/** The wire form of an item's expiry policy (`on_expire`), when it has one. */
export function expiryPolicyJson(policy: ExpiryPolicy): { action: ExpiryPolicy["action"]; response?: unknown; reason?: string } {
  switch (policy.action) {
    case "keep":
      return { action: "keep" };
    case "default":
      return { action: "default", response: policy.response };
    case "deny":
      return { action: "deny", reason: denialValue(policy).message };
  }
}

function onExpireJson(item: ReviewItem): { on_expire?: ReturnType<typeof expiryPolicyJson> } {
  const policy = expiryPolicyOf(item.routing);
  return policy === undefined ? {} : { on_expire: expiryPolicyJson(policy) };
}

/** A quorum or staged item's rule and where it stands (REST item JSON and queue copies). */
export function quorumJson(item: ReviewItem) {
  const { quorum, stages } = item.routing;
  return {
    ...(quorum === undefined ? {} : { rule: ruleJson(quorum) }),
    ...(stages === undefined ? {} : { stages: stages.map((s) => ({ name: s.name, users: [...s.users], roles: [...s.roles], ...(s.quorum === undefined ? {} : { rule: ruleJson(s.quorum) }) })) }),
    progress: progressJson(progressOf(item)),
  };
}

function ruleJson(q: NonNullable<ReviewItem["routing"]["quorum"]>) {
  return { mode: q.mode, ...(q.k === undefined ? {} : { k: q.k }), reject_ends: q.rejectEnds ?? true };
}
