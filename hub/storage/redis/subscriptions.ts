/**
 * RedisSubscriptions: the subscription directory shared by every node
 * (sessions/directory.ts), one key per subscription id holding its thread,
 * tenant and filter as JSON, expiring after `ttlMs`. Writes are fire and
 * forget: a lost one only means the client subscribes afresh.
 */
import { Redis } from "ioredis";
import type { SharedSubscriptions, SubscriptionInfo } from "../../sessions/directory.ts";

export class RedisSubscriptions implements SharedSubscriptions {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttlMs: number;

  static async connect(options: { url: string; prefix?: string; ttlMs?: number }): Promise<RedisSubscriptions> {
    const redis = new Redis(options.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (n) => Math.min(50 * 2 ** Math.min(n, 6), 2_000) });
    redis.on("error", () => {});
    await redis.connect();
    return new RedisSubscriptions(redis, options.prefix ?? "sb:", options.ttlMs ?? 3_600_000);
  }

  private constructor(redis: Redis, prefix: string, ttlMs: number) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#ttlMs = ttlMs;
  }

  put(id: string, info: SubscriptionInfo): void {
    this.#redis.set(`${this.#prefix}s:${id}`, JSON.stringify(info), "PX", this.#ttlMs).catch(() => undefined);
  }

  delete(id: string): void {
    this.#redis.del(`${this.#prefix}s:${id}`).catch(() => undefined);
  }

  async get(ids: readonly string[]): Promise<Map<string, SubscriptionInfo>> {
    const found = new Map<string, SubscriptionInfo>();
    if (ids.length === 0) return found;
    let values: Array<string | null>;
    try {
      values = await this.#redis.mget(ids.map((id) => `${this.#prefix}s:${id}`));
    } catch {
      return found;
    }
    ids.forEach((id, i) => {
      const value = values[i];
      if (typeof value === "string") found.set(id, JSON.parse(value) as SubscriptionInfo);
    });
    return found;
  }

  close(): void {
    this.#redis.disconnect();
  }
}
