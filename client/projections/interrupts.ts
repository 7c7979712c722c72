/**
 * Interrupts projection: the pending questions of a thread (or of a review
 * queue, across threads) with their claim state. `input.requested` adds,
 * `input.claimed` / `input.released` change the claim, `input.answered`,
 * `input.expired`, `input.cancelled` and a cancelled run resolve them, and so do the facts that
 * imply an answer when no `input.answered` was seen (a spec producer, a
 * replay that started later): the raising task finished without it, or the
 * root run completed (an interrupted run is never reported completed).
 * Resolved questions leave
 * `pending` and are remembered (the latest 50, one entry per question) in `resolved`. Pure.
 */
import { reviewInfoSchema, type Actor, type EventOf, type Namespace, type PendingInterrupt, type ProtocolEvent, type ReviewInfo } from "../../hub/protocol/index.ts";

export interface InterruptView {
  interrupt_id: string;
  /** Set for queue items and for every event from the hub. */
  thread_id?: string;
  run_id?: string;
  namespace: Namespace;
  node?: string;
  payload: unknown;
  requested_at?: number;
  status: "open" | "claimed";
  /** The task that raised it (from its `tasks` result), when known. */
  task_id?: string;
  claimed_by?: Actor;
  /** Epoch ms at which the claim lapses. */
  claim_expires_at?: number;
  /** Routing facts (queue, deadline, candidates, response schema) from a queue copy's `review` envelope field. */
  review?: ReviewInfo;
  /** The hub's digest of the payload as shown (`input.requested`); an answer may send it back (`stale_payload` if it changed). */
  payload_digest?: string;
}

/** The `review` envelope field of a queue copy, when present and well formed. */
function reviewOf(event: ProtocolEvent): ReviewInfo | undefined {
  const parsed = reviewInfoSchema.safeParse(Reflect.get(event, "review"));
  return parsed.success ? parsed.data : undefined;
}

export interface ResolvedInterrupt {
  interrupt_id: string;
  thread_id?: string;
  outcome: "answered" | "expired" | "cancelled";
  answered_by?: Actor;
  at?: number;
  /** What the hub did on expiry. */
  action?: EventOf<"input.expired">["params"]["data"]["action"];
  /** Why it was withdrawn (input.cancelled). */
  reason?: string;
  /** The question, when it was pending here: what was asked, where and when. */
  payload?: unknown;
  namespace?: Namespace;
  node?: string;
  run_id?: string;
  requested_at?: number;
  /** Its routing (queue, deadline, assistant), when it was a queue item. */
  review?: ReviewInfo;
}

export interface InterruptsState {
  pending: readonly InterruptView[];
  resolved: readonly ResolvedInterrupt[];
}

export const RESOLVED_KEPT = 50;

export const emptyInterrupts = (): InterruptsState => ({ pending: [], resolved: [] });

const sameItem = (view: { interrupt_id: string; thread_id?: string }, id: string, threadId: string | undefined): boolean =>
  view.interrupt_id === id && (threadId === undefined || view.thread_id === undefined || view.thread_id === threadId);

/** From a snapshot's pending list (resync, queue snapshot). */
export function interruptsFromSnapshot(items: readonly PendingInterrupt[], threadId?: string, runId?: string | null): InterruptsState {
  return {
    pending: items.map((i) => ({
      interrupt_id: i.interrupt_id,
      ...(threadId === undefined ? {} : { thread_id: threadId }),
      ...(runId === undefined || runId === null ? {} : { run_id: runId }),
      namespace: i.namespace,
      ...(i.node === undefined ? {} : { node: i.node }),
      payload: i.payload,
      status: "open",
    })),
    resolved: [],
  };
}

/** What a resolved entry keeps of the question it answers. */
function questionOf(view: InterruptView | undefined): Partial<ResolvedInterrupt> {
  if (!view) return {};
  return {
    payload: view.payload,
    namespace: view.namespace,
    ...(view.node === undefined ? {} : { node: view.node }),
    ...(view.run_id === undefined ? {} : { run_id: view.run_id }),
    ...(view.requested_at === undefined ? {} : { requested_at: view.requested_at }),
    ...(view.review === undefined ? {} : { review: view.review }),
  };
}

function resolve(state: InterruptsState, ids: readonly string[], threadId: string | undefined, make: (id: string) => ResolvedInterrupt): InterruptsState {
  const hit = state.pending.some((p) => ids.some((id) => sameItem(p, id, threadId)));
  const already = ids.every((id) => state.resolved.some((r) => sameItem(r, id, threadId)));
  if (!hit && already) return state;
  const made = ids.map((id) => ({ ...make(id), ...questionOf(state.pending.find((p) => sameItem(p, id, threadId))) }));
  // One entry per question: a question asked again (an expired one after a restart) keeps only its latest outcome.
  const kept = state.resolved.filter((r) => !made.some((m) => m.interrupt_id === r.interrupt_id && m.thread_id === r.thread_id));
  return {
    pending: state.pending.filter((p) => !ids.some((id) => sameItem(p, id, threadId))),
    resolved: [...kept, ...made].slice(-RESOLVED_KEPT),
  };
}

function patch(state: InterruptsState, id: string, threadId: string | undefined, change: (view: InterruptView) => InterruptView): InterruptsState {
  const index = state.pending.findIndex((p) => sameItem(p, id, threadId));
  const found = state.pending[index];
  if (!found) return state;
  const pending = [...state.pending];
  pending[index] = change(found);
  return { ...state, pending };
}

/** Applies one event; events of other methods return the state unchanged. */
export function reduceInterrupts(state: InterruptsState, event: ProtocolEvent): InterruptsState {
  const threadId = event.thread_id;
  const tid = threadId === undefined ? {} : { thread_id: threadId };
  switch (event.method) {
    case "input.requested": {
      const { interrupt_id, payload } = event.params.data;
      const digest = Reflect.get(event.params.data, "payload_digest");
      const view: InterruptView = {
        interrupt_id,
        ...tid,
        ...(event.run_id === undefined ? {} : { run_id: event.run_id }),
        namespace: event.params.namespace,
        ...(event.params.node === undefined ? {} : { node: event.params.node }),
        payload,
        requested_at: event.params.timestamp,
        status: "open",
        ...(typeof digest === "string" ? { payload_digest: digest } : {}),
      };
      const previous = state.pending.find((p) => sameItem(p, interrupt_id, threadId));
      const review = reviewOf(event) ?? previous?.review;
      if (review) view.review = review;
      // A repeat (a thread event after the queue copy, a resubscribe) keeps the item's place and claim.
      if (previous) {
        const merged: InterruptView = { ...previous, ...view, status: previous.status, ...(previous.claimed_by ? { claimed_by: previous.claimed_by } : {}) };
        return { ...state, pending: state.pending.map((p) => (p === previous ? merged : p)) };
      }
      return { ...state, pending: [...state.pending, view] };
    }
    case "input.claimed": {
      const { interrupt_id, claimed_by, expires_at } = event.params.data;
      return patch(state, interrupt_id, threadId, (v) => ({ ...v, status: "claimed", claimed_by, claim_expires_at: expires_at }));
    }
    case "input.released":
      return patch(state, event.params.data.interrupt_id, threadId, ({ claimed_by: _by, claim_expires_at: _at, ...v }) => ({ ...v, status: "open" }));
    case "input.answered": {
      const { interrupt_ids, answered_by, answered_at } = event.params.data;
      return resolve(state, interrupt_ids, threadId, (id) => ({
        interrupt_id: id,
        ...tid,
        outcome: "answered",
        ...(answered_by === undefined ? {} : { answered_by }),
        at: answered_at ?? event.params.timestamp,
      }));
    }
    case "input.expired": {
      const { interrupt_id, expired_at, action } = event.params.data;
      return resolve(state, [interrupt_id], threadId, (id) => ({ interrupt_id: id, ...tid, outcome: "expired", at: expired_at, action }));
    }
    case "input.cancelled": {
      const { interrupt_id, cancelled_at, reason } = event.params.data;
      return resolve(state, [interrupt_id], threadId, (id) => ({ interrupt_id: id, ...tid, outcome: "cancelled", at: cancelled_at, reason }));
    }
    case "input.escalated": {
      // Still pending, routed elsewhere: the routing facts follow.
      const { interrupt_id, queue, users, roles } = event.params.data;
      return patch(state, interrupt_id, threadId, (v) => (v.review ? { ...v, review: { ...v.review, queue, users, roles } } : v));
    }
    case "input.voted": {
      // A vote on a quorum item: still pending; where its stage stands follows ("2 of 3 approved: Rita, Sam").
      const { interrupt_id, progress } = event.params.data;
      return patch(state, interrupt_id, threadId, (v) => (v.review?.quorum ? { ...v, review: { ...v.review, quorum: { ...v.review.quorum, progress: { ...progress } } } } : v));
    }
    case "input.reassigned": {
      // Still pending, routed elsewhere: the routing facts follow (a queue that no longer lists it hears it named by its old queue).
      const { interrupt_id, to } = event.params.data;
      return patch(state, interrupt_id, threadId, (v) => (v.review ? { ...v, review: { ...v.review, queue: to.queue, users: [...to.users], roles: [...to.roles] } } : v));
    }
    case "tasks":
      return onTaskResult(state, event);
    case "lifecycle": {
      const data = event.params.data;
      if (event.params.namespace.length > 0) return state;
      if (data.event === "completed") {
        const ids = state.pending.filter((p) => threadId === undefined || p.thread_id === undefined || p.thread_id === threadId).map((p) => p.interrupt_id);
        return ids.length === 0 ? state : resolve(state, ids, threadId, (id) => ({ interrupt_id: id, ...tid, outcome: "answered", at: event.params.timestamp }));
      }
      // A cancelled run voids the questions it asked (interrupt_cancelled).
      if (data.cancelled !== true || event.run_id === undefined) return state;
      const ids = state.pending.filter((p) => p.run_id === event.run_id && (threadId === undefined || p.thread_id === threadId)).map((p) => p.interrupt_id);
      if (ids.length === 0) return state;
      return resolve(state, ids, threadId, (id) => ({ interrupt_id: id, ...tid, outcome: "cancelled", at: event.params.timestamp }));
    }
    default:
      return state;
  }
}

/**
 * A task result names the interrupts its task raised: they learn their
 * task (and node); the pending ones of that task it no longer lists were answered.
 */
function onTaskResult(state: InterruptsState, event: EventOf<"tasks">): InterruptsState {
  const data = event.params.data;
  const raised = data.interrupts;
  if (raised === undefined || data.error) return state;
  const threadId = event.thread_id;
  const ns = event.params.namespace.join("\u0000");
  let next = state;
  // The task result also names the node, which an input.requested may leave out.
  for (const { id } of raised) next = patch(next, id, threadId, (v) => (v.task_id === data.id && v.node !== undefined ? v : { ...v, task_id: data.id, node: v.node ?? data.name }));
  const done = next.pending
    .filter((p) => p.task_id === data.id && p.namespace.join("\u0000") === ns && !raised.some((r) => r.id === p.interrupt_id))
    .map((p) => p.interrupt_id);
  if (done.length === 0) return next;
  const tid = threadId === undefined ? {} : { thread_id: threadId };
  return resolve(next, done, threadId, (id) => ({ interrupt_id: id, ...tid, outcome: "answered", at: event.params.timestamp }));
}

/** Whether a claim is still held at `now` (claims are leases). */
export function isClaimHeld(view: InterruptView, now: number = Date.now()): boolean {
  return view.status === "claimed" && (view.claim_expires_at === undefined || view.claim_expires_at > now);
}
