/**
 * Subscriptions by id, kept after their connection closes so that
 * `subscription.reconnect` on a new connection can restore them with their
 * filters. Bounded: the oldest are forgotten first.
 *
 * With several nodes the directory is mirrored in a shared store (Redis): a
 * subscription made on one node is restored by `subscription.reconnect` on
 * any other, which loads the ids it does not know before it looks them up.
 */
import type { SubscriptionFilter } from "../protocol/index.ts";

export interface SubscriptionInfo {
  threadId: string;
  tenant: string;
  filter: SubscriptionFilter;
}

/** Where several nodes share their subscriptions (writes are best effort: a lost one only means a fresh subscribe). */
export interface SharedSubscriptions {
  put(id: string, info: SubscriptionInfo): void;
  delete(id: string): void;
  get(ids: readonly string[]): Promise<Map<string, SubscriptionInfo>>;
}

export class SubscriptionDirectory {
  readonly #byId = new Map<string, SubscriptionInfo>();
  readonly #capacity: number;
  readonly #shared: SharedSubscriptions | undefined;

  constructor(capacity = 50_000, shared?: SharedSubscriptions) {
    this.#capacity = capacity;
    this.#shared = shared;
  }

  /** Loads the ids this node does not know from the shared store (several nodes; a no-op otherwise). */
  async load(ids: readonly string[]): Promise<void> {
    const missing = ids.filter((id) => !this.#byId.has(id));
    if (this.#shared === undefined || missing.length === 0) return;
    for (const [id, info] of await this.#shared.get(missing)) this.#remember(id, info);
  }

  remember(id: string, info: SubscriptionInfo): void {
    this.#remember(id, info);
    this.#shared?.put(id, info);
  }

  #remember(id: string, info: SubscriptionInfo): void {
    this.#byId.set(id, info);
    if (this.#byId.size > this.#capacity) {
      const oldest = this.#byId.keys().next();
      if (!oldest.done) this.#byId.delete(oldest.value);
    }
  }

  forget(id: string): void {
    this.#byId.delete(id);
    this.#shared?.delete(id);
  }

  /** The subscription if it was made on this thread by this tenant. */
  lookup(id: string, threadId: string, tenant: string): SubscriptionInfo | undefined {
    const info = this.#byId.get(id);
    return info && info.threadId === threadId && info.tenant === tenant ? info : undefined;
  }
}
