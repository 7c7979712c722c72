/**
 * Review items as wire events (hub/protocol shapes). The hub assigns
 * `seq` / `event_id` when it appends them to the thread log; these carry the
 * thread and run ids so it knows where they go.
 */
import type { EventOf, EventParams, InputCancelledData, InputExpiredData, ReviewActionJson, ReviewInfo } from "../protocol/index.ts";
import type { ActionRef, Actor, ReviewItem } from "./types.ts";

export type ReviewWireEvent =
  | EventOf<"input.requested">
  | EventOf<"input.answered">
  | EventOf<"input.claimed">
  | EventOf<"input.released">
  | EventOf<"input.expired">
  | EventOf<"input.cancelled">;

/** What the service reports: the event, and the item it is about (for per-subscriber authorization). */
export interface ReviewEvent {
  item: ReviewItem;
  /**
   * `queue`: for queue subscribers only — the thread's own subscribers got
   * this one from the run's projection. `all`: thread and queue subscribers.
   */
  audience: "all" | "queue";
  event: ReviewWireEvent;
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
  return { ...envelope(item), method: "input.requested", params: params(item, now, { interrupt_id: item.interruptId, payload: item.payload }) };
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
  return { ...envelope(item), method: "input.expired", params: params(item, now, data) };
}

export function cancelledEvent(item: ReviewItem, reason: string, now: number): EventOf<"input.cancelled"> {
  const data: InputCancelledData = { interrupt_id: item.interruptId, cancelled_at: now, reason };
  return { ...envelope(item), method: "input.cancelled", params: params(item, now, data) };
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
    has_default: item.routing.onExpire !== undefined,
    ...(item.routing.responseSchema === undefined ? {} : { response_schema: item.routing.responseSchema }),
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
