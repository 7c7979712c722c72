/** Reconnect delays: exponential backoff with jitter, as a pure function. */

export interface BackoffOptions {
  /** Delay before the first retry (ms). */
  initialDelayMs: number;
  /** Upper bound of the delay (ms). */
  maxDelayMs: number;
  /** Growth per attempt. */
  factor: number;
  /** Share of the delay that is randomized: 0 = none, 1 = "full jitter". */
  jitter: number;
  /** Give up after this many consecutive failed attempts (Infinity = never). */
  maxAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  factor: 2,
  jitter: 0.5,
  maxAttempts: Number.POSITIVE_INFINITY,
};

/**
 * The delay before retry number `attempt` (0-based): the capped exponential
 * delay `d`, of which the `jitter` share is scaled by `random()` ∈ [0, 1),
 * so the result lies in [d·(1-jitter), d]. Jitter spreads the reconnects of
 * many clients after a hub restart.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * options.factor ** Math.max(0, attempt));
  const jitter = Math.min(1, Math.max(0, options.jitter));
  return Math.round(base * (1 - jitter + jitter * random()));
}
