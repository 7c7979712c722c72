/**
 * The results table: rows of `metric | Switchboard | peer | ratio | target |
 * met?`, formatted the same for the console and for docs/benchmarks.md.
 */
import type { Spread } from "./measure.ts";

/** How a metric's numbers are printed. Times are milliseconds, memory bytes. */
export type Unit = "time" | "rate" | "count" | "bytes" | "percent";

/** A measured value, or why there is none ("n/a: …"). */
export type Cell = { spread: Spread } | { na: string };

export interface Target {
  /** As printed, e.g. "ratio ≤ 0.10". */
  text: string;
  /** undefined when it cannot be judged (a side is n/a). */
  met: boolean | undefined;
}

export interface Row {
  metric: string;
  unit: Unit;
  ours: Cell;
  peer: Cell;
  target?: Target;
}

export const na = (why: string): Cell => ({ na: why });
export const cell = (spread: Spread): Cell => ({ spread });

export function medianOf(c: Cell): number | undefined {
  return "spread" in c ? c.spread.median : undefined;
}

/** ours / peer of the medians, or undefined when either side is missing. */
export function ratioOf(row: Row): number | undefined {
  const ours = medianOf(row.ours);
  const peer = medianOf(row.peer);
  return ours === undefined || peer === undefined || peer === 0 ? undefined : ours / peer;
}

function sig(value: number, digits = 3): string {
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 10 ** digits) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(digits)).toString();
}

function scaled(value: number, steps: ReadonlyArray<readonly [number, string]>): [number, string] {
  for (const [factor, suffix] of steps) if (Math.abs(value) >= factor) return [value / factor, suffix];
  const last = steps[steps.length - 1] as readonly [number, string];
  return [value / last[0], last[1]];
}

const TIME: ReadonlyArray<readonly [number, string]> = [
  [1000, "s"],
  [1, "ms"],
  [0.001, "µs"],
  [0.000001, "ns"],
];
const RATE: ReadonlyArray<readonly [number, string]> = [
  [1e6, "M/s"],
  [1e3, "k/s"],
  [1, "/s"],
];
const BYTES: ReadonlyArray<readonly [number, string]> = [
  [1024 * 1024, "MB"],
  [1024, "KB"],
  [1, "B"],
];

/** One number in the unit's natural scale, e.g. "12.3 µs". */
export function formatValue(value: number, unit: Unit): string {
  switch (unit) {
    case "time": {
      const [v, s] = scaled(value, TIME);
      return `${sig(v)} ${s}`;
    }
    case "rate": {
      const [v, s] = scaled(value, RATE);
      return `${sig(v)} ${s}`;
    }
    case "bytes": {
      const [v, s] = scaled(value, BYTES);
      return `${sig(v)} ${s}`;
    }
    case "percent":
      return `${sig(value * 100)}%`;
    case "count":
      return Math.round(value).toLocaleString("en-US");
    default:
      return assertNever(unit);
  }
}

/** "median (min–max)", in one scale so the range reads at a glance. */
export function formatCell(c: Cell, unit: Unit): string {
  if ("na" in c) return c.na;
  const { median, min, max } = c.spread;
  if (min === max) return formatValue(median, unit);
  const scale = unit === "time" ? TIME : unit === "rate" ? RATE : unit === "bytes" ? BYTES : undefined;
  if (!scale) return `${formatValue(median, unit)} (${formatValue(min, unit)}–${formatValue(max, unit)})`;
  const [v, suffix] = scaled(median, scale);
  const factor = median / v;
  return `${sig(v)} ${suffix} (${sig(min / factor)}–${sig(max / factor)})`;
}

export function formatRatio(row: Row): string {
  const r = ratioOf(row);
  if (r === undefined) return "—";
  return r >= 100 ? `${Math.round(r)}×` : `${Number(r.toPrecision(2))}×`;
}

function formatMet(target: Target | undefined): string {
  if (!target || target.met === undefined) return "—";
  return target.met ? "yes" : "**no**";
}

/** The table as markdown lines, padded so it also reads in a terminal. */
export function tableLines(rows: readonly Row[], peer: string): string[] {
  const header = ["metric", "Switchboard", peer, "ratio (ours/peer)", "target", "met?"];
  const body = rows.map((r) => [
    r.metric,
    formatCell(r.ours, r.unit),
    formatCell(r.peer, r.unit),
    formatRatio(r),
    r.target?.text ?? "—",
    formatMet(r.target),
  ]);
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((line) => (line[i] as string).length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)];
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${String(value)}`);
}
