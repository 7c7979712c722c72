/**
 * REST rate limiting, like the sockets': a token bucket per caller (tenant and
 * subject), `restRequestsPerSecond` sustained with `restBurst` at once; every
 * authenticated request spends a token, refused ones too. Past it: 429
 * `rate_limited` with `details.retry_after_ms` and `Retry-After`. The buckets
 * are bounded: the least recently used are forgotten first (a forgotten
 * bucket comes back full, which is what an idle caller's would be).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Principal } from "../auth/index.ts";
import type { HubLimits } from "../config.ts";
import type { HubMetrics } from "../metrics.ts";
import { errorResponse } from "../protocol/index.ts";

const MAX_BUCKETS = 10_000;

class Bucket {
  tokens: number;
  at: number;
  constructor(tokens: number, at: number) {
    this.tokens = tokens;
    this.at = at;
  }
}

export class RequestRateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #limits: Pick<HubLimits, "restRequestsPerSecond" | "restBurst">;
  readonly #now: () => number;

  constructor(limits: Pick<HubLimits, "restRequestsPerSecond" | "restBurst">, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Spends one of `key`'s tokens: 0 when the request may go, else the ms until the next token. */
  take(key: string): number {
    const { restRequestsPerSecond: rate, restBurst: burst } = this.#limits;
    const now = this.#now();
    const found = this.#buckets.get(key);
    const bucket = found ?? new Bucket(burst, now);
    // Most recently used last, so the first key is the one to forget.
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (found === undefined && this.#buckets.size > MAX_BUCKETS) {
      const oldest = this.#buckets.keys().next();
      if (!oldest.done) this.#buckets.delete(oldest.value);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / rate) * 1000);
  }
}

/** The middleware, after authentication. `POST …/commands` answers as a command error, the others as REST errors. */
export function restRateLimit(limiter: RequestRateLimiter, metrics: HubMetrics): MiddlewareHandler<{ Variables: { principal: Principal } }> {
  return async (c, next) => {
    const principal = c.get("principal");
    const wait = limiter.take(`${principal.tenant}\u0000${principal.sub}`);
    if (wait === 0) return next();
    metrics.rateLimited++;
    return tooMany(c, wait);
  };
}

function tooMany(c: Context, wait: number): Response {
  const message = `too many requests; retry in ${wait} ms`;
  const body = new URL(c.req.url).pathname.endsWith("/commands")
    ? errorResponse(null, "rate_limited", message, { retry_after_ms: wait })
    : { error: "rate_limited", message, detail: message, details: { retry_after_ms: wait } };
  return c.json(body, 429, { "retry-after": String(Math.ceil(wait / 1000)) });
}
