/**
 * Time and timers for the presence relay: the system clock in production, a
 * manual one in tests (no sleeps, and pending timers can be counted).
 */

/** Stops a scheduled or repeating callback; calling it twice is harmless. */
export type Cancel = () => void;

export interface PresenceClock {
  now(): number;
  /** Runs `fn` once after `ms`; `0` means right after the current tick (setImmediate). */
  schedule(fn: () => void, ms: number): Cancel;
  /** Runs `fn` every `ms` until cancelled; must not keep the process alive. */
  repeat(fn: () => void, ms: number): Cancel;
}

export const systemClock: PresenceClock = {
  now: () => Date.now(),
  schedule(fn, ms) {
    if (ms <= 0) {
      const handle = setImmediate(fn);
      return () => clearImmediate(handle);
    }
    const handle = setTimeout(fn, ms);
    return () => clearTimeout(handle);
  },
  repeat(fn, ms) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return () => clearInterval(handle);
  },
};
