/**
 * Subscriptions by id, kept after their connection closes so that
 * `subscription.reconnect` on a new connection can restore them with their
 * filters. Those of open connections are held as long as they are; those
 * kept for a reconnect ("retained") are bounded in count, in bytes (a filter
 * may be tens of kilobytes) and in age — the oldest are forgotten first.
 *
 * With several nodes the directory is mirrored in a shared store (Redis): a
 * subscription made on one node is restored by `subscription.reconnect` on
 * any other, which loads the ids it does not know before it looks them up.
 */
import { utf8Bytes, type SubscriptionFilter } from "../protocol/index.ts";

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

/** Bounds of the subscriptions kept for a reconnect (HubLimits.retainedSubscriptions…). */
export interface RetentionLimits {
  retainedSubscriptions: number;
  retainedSubscriptionBytes: number;
  retainedSubscriptionMs: number;
}

/** What a kept subscription costs: its filter's JSON, ids and the entry (an estimate of the heap it holds). */
const ENTRY_OVERHEAD_BYTES = 200;

class Retained {
  readonly info: SubscriptionInfo;
  readonly bytes: number;
  /** When its connection released it (Date.now()). */
  readonly at: number;

  constructor(id: string, info: SubscriptionInfo, at: number) {
    this.info = info;
    this.bytes = ENTRY_OVERHEAD_BYTES + utf8Bytes(id) + utf8Bytes(info.threadId) + utf8Bytes(info.tenant) + utf8Bytes(JSON.stringify(info.filter));
    this.at = at;
  }
}

export class SubscriptionDirectory {
  /** Subscriptions of open connections. */
  readonly #active = new Map<string, SubscriptionInfo>();
  /** Kept for a reconnect, oldest first (insertion order is release order). */
  readonly #retained = new Map<string, Retained>();
  #retainedBytes = 0;
  readonly #limits: RetentionLimits;
  readonly #shared: SharedSubscriptions | undefined;
  readonly #now: () => number;

  constructor(limits: RetentionLimits, shared?: SharedSubscriptions, now: () => number = Date.now) {
    this.#limits = limits;
    this.#shared = shared;
    this.#now = now;
  }

  /** Kept for a reconnect: how many, and their bytes. */
  get retained(): { count: number; bytes: number } {
    this.#trim();
    return { count: this.#retained.size, bytes: this.#retainedBytes };
  }

  /** Loads the ids this node does not know from the shared store (several nodes; a no-op otherwise). */
  async load(ids: readonly string[]): Promise<void> {
    const missing = ids.filter((id) => !this.#active.has(id) && !this.#retained.has(id));
    if (this.#shared === undefined || missing.length === 0) return;
    // Made on another node, whose connection is gone or elsewhere: kept like a released one.
    for (const [id, info] of await this.#shared.get(missing)) this.#retain(id, info);
  }

  /** A new subscription of an open connection. */
  remember(id: string, info: SubscriptionInfo): void {
    this.#active.set(id, info);
    this.#shared?.put(id, info);
  }

  /** Its connection closed: kept for a reconnect, within the bounds. */
  release(id: string): void {
    const info = this.#active.get(id);
    if (info === undefined) return;
    this.#active.delete(id);
    this.#retain(id, info);
  }

  /** Restored on a new connection: held as long as that one is open. */
  reclaim(id: string, info: SubscriptionInfo): void {
    this.#drop(id);
    this.#active.set(id, info);
  }

  forget(id: string): void {
    this.#active.delete(id);
    this.#drop(id);
    this.#shared?.delete(id);
  }

  /** The subscription if it was made on this thread by this tenant (and, when retained, is not too old). */
  lookup(id: string, threadId: string, tenant: string): SubscriptionInfo | undefined {
    this.#trim();
    const info = this.#active.get(id) ?? this.#retained.get(id)?.info;
    return info && info.threadId === threadId && info.tenant === tenant ? info : undefined;
  }

  #retain(id: string, info: SubscriptionInfo): void {
    this.#drop(id);
    const entry = new Retained(id, info, this.#now());
    this.#retained.set(id, entry);
    this.#retainedBytes += entry.bytes;
    this.#trim();
  }

  #drop(id: string): void {
    const entry = this.#retained.get(id);
    if (entry === undefined) return;
    this.#retained.delete(id);
    this.#retainedBytes -= entry.bytes;
  }

  /** Forgets the oldest until the count, bytes and age are within bounds. */
  #trim(): void {
    const { retainedSubscriptions: count, retainedSubscriptionBytes: bytes, retainedSubscriptionMs: ageMs } = this.#limits;
    const oldestKept = this.#now() - ageMs;
    for (const [id, entry] of this.#retained) {
      if (this.#retained.size <= count && this.#retainedBytes <= bytes && entry.at >= oldestKept) break;
      this.#retained.delete(id);
      this.#retainedBytes -= entry.bytes;
    }
  }
}
