/**
 * Review-queue projection: the open items of a queue across threads, from
 * the `queue.subscribe` snapshot (the unnumbered `input.requested` /
 * `input.claimed` events the hub sends right after the response; a result
 * `items` list is also read) and the `input.*` events routed to the queue. Items are keyed by
 * (thread_id, interrupt_id) and share the interrupts reducer. Pure.
 */
import { ALL_QUEUES, isRecord, type Namespace, type ProtocolEvent } from "../../hub/protocol/index.ts";
import { emptyInterrupts, reduceInterrupts, type InterruptView, type InterruptsState } from "./interrupts.ts";

export type QueueState = InterruptsState;

export const emptyQueue = (): QueueState => emptyInterrupts();

const isNamespace = (value: unknown): value is Namespace => Array.isArray(value) && value.every((s) => typeof s === "string");

/** Reads a snapshot item (`{ thread_id, interrupt_id, namespace?, node?, payload, claimed_by?, expires_at? }`). */
export function queueItemOf(value: unknown): InterruptView | null {
  if (!isRecord(value)) return null;
  const interruptId = value["interrupt_id"];
  const threadId = value["thread_id"];
  if (typeof interruptId !== "string" || typeof threadId !== "string") return null;
  const namespace = isNamespace(value["namespace"]) ? value["namespace"] : [];
  const node = value["node"];
  const runId = value["run_id"];
  const claimedBy = value["claimed_by"];
  const expiresAt = value["expires_at"] ?? value["claim_expires_at"];
  const claimed = isRecord(claimedBy) && typeof claimedBy["sub"] === "string" && typeof claimedBy["name"] === "string";
  return {
    interrupt_id: interruptId,
    thread_id: threadId,
    namespace,
    payload: value["payload"],
    status: claimed ? "claimed" : "open",
    ...(typeof node === "string" ? { node } : {}),
    ...(typeof runId === "string" ? { run_id: runId } : {}),
    ...(claimed ? { claimed_by: { sub: String(claimedBy["sub"]), name: String(claimedBy["name"]) } } : {}),
    ...(claimed && typeof expiresAt === "number" ? { claim_expires_at: expiresAt } : {}),
  };
}

/** A fresh snapshot replaces the open items; what was resolved is kept. */
export function queueFromSnapshot(state: QueueState, items: readonly unknown[]): QueueState {
  return { pending: items.flatMap((i) => queueItemOf(i) ?? []), resolved: state.resolved };
}

/** Applies one `input.*` (or cancelling lifecycle) event routed to the queue. */
export function reduceQueue(state: QueueState, event: ProtocolEvent): QueueState {
  return reduceInterrupts(state, event);
}

/**
 * The same for the queue called `name`: an `input.escalated` or `input.reassigned`
 * that moved the item to another queue also takes it off this list (it is still
 * pending, elsewhere).
 */
export function reduceNamedQueue(state: QueueState, event: ProtocolEvent, name: string): QueueState {
  const movedTo = event.method === "input.escalated" ? event.params.data.queue : event.method === "input.reassigned" ? event.params.data.to.queue : undefined;
  if (movedTo !== undefined && (event.method === "input.escalated" || event.method === "input.reassigned") && name !== ALL_QUEUES && movedTo !== name) {
    const { interrupt_id } = event.params.data;
    const pending = state.pending.filter((p) => !(p.interrupt_id === interrupt_id && (event.thread_id === undefined || p.thread_id === undefined || p.thread_id === event.thread_id)));
    return pending.length === state.pending.length ? state : { ...state, pending };
  }
  return reduceQueue(state, event);
}
