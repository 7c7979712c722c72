/** What the engine suites share: running both engines per run, and building rows. */
import { summarizeRuns, type Spread } from "../lib/measure.ts";
import { cell, type Row, type Target, type Unit } from "../lib/report.ts";
import { langgraph } from "./langgraph.ts";
import type { EngineUnderTest } from "./port.ts";
import { switchboard } from "./switchboard.ts";

export interface Sides<T> {
  ours: T;
  peer: T;
}

/**
 * Measures both engines in every run, alternating which goes first so a
 * slow-down of the machine (or JIT order) does not always land on one side.
 */
export async function measureBoth<K extends string>(
  runs: number,
  measure: (engine: EngineUnderTest, run: number) => Promise<Record<K, number>>,
): Promise<Sides<Record<K, Spread>>> {
  const results: Sides<Array<Record<K, number>>> = { ours: [], peer: [] };
  for (let run = 0; run < runs; run++) {
    const order: Array<keyof Sides<unknown>> = run % 2 === 0 ? ["ours", "peer"] : ["peer", "ours"];
    for (const side of order) results[side].push(await measure(side === "ours" ? switchboard : langgraph, run));
  }
  return { ours: summarizeRuns(results.ours), peer: summarizeRuns(results.peer) };
}

export function scale(spread: Spread, factor: number): Spread {
  return {
    median: spread.median * factor,
    min: spread.min * factor,
    max: spread.max * factor,
    values: spread.values.map((v) => v * factor),
  };
}

export function row(metric: string, unit: Unit, sides: Sides<Spread>, target?: (ours: Spread, peer: Spread) => Target): Row {
  return { metric, unit, ours: cell(sides.ours), peer: cell(sides.peer), ...(target ? { target: target(sides.ours, sides.peer) } : {}) };
}

/** Target "ours / peer ≤ limit" on the medians (times: 0.1 means 10× lower). */
export const ratioAtMost =
  (limit: number) =>
  (ours: Spread, peer: Spread): Target => ({ text: `ratio ≤ ${limit.toFixed(2)}`, met: ours.median / peer.median <= limit });

export function pick<K extends string>(sides: Sides<Record<K, Spread>>, key: K): Sides<Spread> {
  return { ours: sides.ours[key], peer: sides.peer[key] };
}
