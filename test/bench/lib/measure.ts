/**
 * Bounded timing loops and the statistics of repeated runs. Every loop stops
 * at a count or a time budget, whichever comes first, so a slow library can
 * make a run less precise but never make it hang.
 */
import { performance } from "node:perf_hooks";

export interface LoopBounds {
  /** Untimed iterations first (JIT warm-up), stopping early after warmupMs. */
  warmup: number;
  warmupMs: number;
  /** At most this many timed iterations... */
  iterations: number;
  /** ...and no more once this much time has passed (at least one always runs). */
  budgetMs: number;
}

export interface LoopSample {
  /** Mean milliseconds per iteration. */
  perOpMs: number;
  ops: number;
  elapsedMs: number;
}

/** Runs `op(i)` sequentially within the bounds and returns the mean time per call. */
export async function timeLoop(op: (i: number) => Promise<unknown>, bounds: LoopBounds): Promise<LoopSample> {
  let i = 0;
  const warmupEnd = performance.now() + bounds.warmupMs;
  for (; i < bounds.warmup && performance.now() < warmupEnd; i++) await op(i);
  const start = performance.now();
  const deadline = start + bounds.budgetMs;
  let ops = 0;
  while (ops < bounds.iterations) {
    await op(i++);
    ops += 1;
    if (performance.now() >= deadline) break;
  }
  const elapsedMs = performance.now() - start;
  return { perOpMs: elapsedMs / ops, ops, elapsedMs };
}

/** Milliseconds taken by `fn`. */
export async function timeOnce(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Median and range of one metric over repeated runs. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  values: readonly number[];
}

export function summarize(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError("summarize() needs at least one value");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, values };
}

/** One Spread per metric name, from the per-run records of named numbers. */
export function summarizeRuns<K extends string>(runs: ReadonlyArray<Record<K, number>>): Record<K, Spread> {
  const collected = new Map<K, number[]>();
  for (const run of runs) {
    for (const [name, value] of Object.entries(run) as Array<[K, number]>) {
      let list = collected.get(name);
      if (!list) collected.set(name, (list = []));
      list.push(value);
    }
  }
  const out = {} as Record<K, Spread>;
  for (const [name, values] of collected) out[name] = summarize(values);
  return out;
}
