/**
 * When a delivery is tried again: exponential backoff from `retryBaseMs`,
 * doubling per try up to `retryMaxMs`, with up to ±20 % jitter so receivers
 * that came back are not hit by every node at once; after `maxAttempts`
 * tries the delivery is failed (REST can replay it). Pure, for every backend.
 */
import type { AttemptOutcome } from "./outbox.ts";

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, retryBaseMs: 1_000, retryMaxMs: 10 * 60_000 };

/** Delay before try `tries + 1`, having made `tries` (≥ 1); `random` in [0, 1). */
export function backoffMs(tries: number, policy: RetryPolicy, random: number = Math.random()): number {
  const base = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.min(tries - 1, 40));
  return Math.round(base * (0.8 + 0.4 * random));
}

/** The outcome of an attempt, `tries` counting it. */
export function outcomeOf(ok: boolean, tries: number, policy: RetryPolicy, now: number, random?: number): AttemptOutcome {
  if (ok) return { status: "delivered", nextAttemptAt: null };
  if (tries >= policy.maxAttempts) return { status: "failed", nextAttemptAt: null };
  return { status: "pending", nextAttemptAt: new Date(now + backoffMs(tries, policy, random)).toISOString() };
}
