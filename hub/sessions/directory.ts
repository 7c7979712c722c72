/**
 * Subscriptions by id, kept after their connection closes so that
 * `subscription.reconnect` on a new connection can restore them with their
 * filters. Bounded: the oldest are forgotten first.
 */
import type { SubscriptionFilter } from "../protocol/index.ts";

export interface SubscriptionInfo {
  threadId: string;
  tenant: string;
  filter: SubscriptionFilter;
}

export class SubscriptionDirectory {
  readonly #byId = new Map<string, SubscriptionInfo>();
  readonly #capacity: number;

  constructor(capacity = 50_000) {
    this.#capacity = capacity;
  }

  remember(id: string, info: SubscriptionInfo): void {
    this.#byId.set(id, info);
    if (this.#byId.size > this.#capacity) {
      const oldest = this.#byId.keys().next();
      if (!oldest.done) this.#byId.delete(oldest.value);
    }
  }

  forget(id: string): void {
    this.#byId.delete(id);
  }

  /** The subscription if it was made on this thread by this tenant. */
  lookup(id: string, threadId: string, tenant: string): SubscriptionInfo | undefined {
    const info = this.#byId.get(id);
    return info && info.threadId === threadId && info.tenant === tenant ? info : undefined;
  }
}
