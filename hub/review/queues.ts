/**
 * Review-queue subscribers across threads: who follows which queue of which
 * tenant, and the rule that an item reaches a subscriber only if they could
 * ever answer it (tenant, reviewer role, candidacy, self-approval) — not just
 * see it. Transport-agnostic: each subscriber is a `deliver` callback.
 */
import { nanoid } from "nanoid";
import type { Principal } from "../auth/index.ts";
import { ALL_QUEUES, type ProtocolEvent } from "../protocol/index.ts";
import { mayAnswer } from "./policy.ts";
import type { ReviewItem } from "./types.ts";

export interface QueueListener {
  principal: Principal;
  queue: string;
  deliver(event: ProtocolEvent, item: ReviewItem): void;
}

/** Whether the principal may answer the item in principle (ignoring its state, claim and deadline). */
export function mayEverAnswer(principal: Principal, item: ReviewItem): boolean {
  return mayAnswer(principal, { ...item, status: "open", claim: null, expiresAt: null }, 0).ok;
}

/** Whether the item is in the listener's queue (or it follows every queue) and the listener could answer it. */
function reaches(listener: QueueListener, item: ReviewItem): boolean {
  if (listener.queue !== ALL_QUEUES && listener.queue !== item.routing.queue) return false;
  return listener.principal.tenant === item.tenant && mayEverAnswer(listener.principal, item);
}

export class QueueFanout {
  readonly #listeners = new Map<string, QueueListener>();

  subscribe(listener: QueueListener): string {
    const id = `q_${nanoid(12)}`;
    this.#listeners.set(id, listener);
    return id;
  }

  unsubscribe(id: string): boolean {
    return this.#listeners.delete(id);
  }

  has(id: string): boolean {
    return this.#listeners.has(id);
  }

  get size(): number {
    return this.#listeners.size;
  }

  deliver(item: ReviewItem, event: ProtocolEvent): void {
    for (const listener of this.#listeners.values()) {
      if (reaches(listener, item)) listener.deliver(event, item);
    }
  }

  /**
   * An event that re-routed the item (an escalation, a reassignment):
   * subscribers who saw it before hear the event (named by the old queue when
   * it left theirs, so they drop it); subscribers who see it only now get it
   * as new — `appear` (its `input.requested`, and `input.claimed` while a
   * claim holds it, as a snapshot would show it) first, then the event.
   */
  deliverMove(before: ReviewItem, after: ReviewItem, event: ProtocolEvent, appear: readonly ProtocolEvent[]): void {
    for (const listener of this.#listeners.values()) {
      const saw = reaches(listener, before);
      const sees = reaches(listener, after);
      if (saw) {
        listener.deliver(event, sees ? after : before);
      } else if (sees) {
        for (const shown of appear) listener.deliver(shown, after);
        listener.deliver(event, after);
      }
    }
  }
}
