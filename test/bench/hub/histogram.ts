/**
 * Latency histogram with log-spaced buckets (1% wide) over microseconds, so
 * client processes can report millions of samples as a few hundred counts
 * and the parent can merge them and read exact-to-1% quantiles.
 */
const LOG_STEP = Math.log(1.01);

export type Histogram = Record<number, number>;

export function record(h: Histogram, ms: number): void {
  const us = Math.max(1, ms * 1000);
  const b = Math.round(Math.log(us) / LOG_STEP);
  h[b] = (h[b] ?? 0) + 1;
}

export function merge(into: Histogram, from: Histogram): Histogram {
  for (const [k, v] of Object.entries(from)) into[Number(k)] = (into[Number(k)] ?? 0) + v;
  return into;
}

export function total(h: Histogram): number {
  let n = 0;
  for (const v of Object.values(h)) n += v;
  return n;
}

/** The q-quantile in milliseconds (NaN for an empty histogram). */
export function quantile(h: Histogram, q: number): number {
  const keys = Object.keys(h).map(Number).sort((a, b) => a - b);
  const n = total(h);
  if (n === 0) return Number.NaN;
  const rank = Math.ceil(q * n);
  let seen = 0;
  for (const k of keys) {
    seen += h[k] as number;
    if (seen >= rank) return Math.exp(k * LOG_STEP) / 1000;
  }
  return Math.exp((keys.at(-1) as number) * LOG_STEP) / 1000;
}
