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
      if ((listener.queue !== ALL_QUEUES && listener.queue !== item.routing.queue) || listener.principal.tenant !== item.tenant) continue;
      if (!mayEverAnswer(listener.principal, item)) continue;
      listener.deliver(event, item);
    }
  }
}
