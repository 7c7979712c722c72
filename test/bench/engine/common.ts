/**
 * What the engine suites share: running both engines per run, each in its own
 * process, and building rows.
 */
import { fileURLToPath } from "node:url";
import { summarizeRuns, type Spread } from "../lib/measure.ts";
import { BenchChild } from "../lib/proc.ts";
import { addWarnings } from "../lib/warnings.ts";
import { cell, type Row, type Target, type Unit } from "../lib/report.ts";
import type { SuiteContext } from "../suite.ts";
import { ENGINE_NAMES, type EngineName } from "./engines.ts";
import type { EngineUnderTest } from "./port.ts";

export interface Sides<T> {
  ours: T;
  peer: T;
}

/** What one side's measurement gets besides its engine (in the engine's own process). */
export interface SideArgs {
  run: number;
  quick: boolean;
  /** Scenario parameters chosen by the suite (JSON-able). */
  params: Record<string, unknown>;
  /** Lines for the bench's log (printed by the parent). */
  log(line: string): void;
}

/** One engine's measurement for one run: named values (NaN: "not available in this library"). */
export type SideMeasure = (engine: EngineUnderTest, args: SideArgs) => Promise<Record<string, number>>;

const SIDE_CHILD = fileURLToPath(new URL("./side-child.ts", import.meta.url));
let children: Promise<Record<EngineName, BenchChild>> | undefined;

/**
 * One long-lived process per engine for all engine suites (so JIT warmth
 * carries over between suites as it would in one process), started on first use.
 * Separate processes because each library changes what every promise costs in
 * its process: LangGraph.js through AsyncLocalStorage, Switchboard through its
 * promise hooks (engine/runtime/scope.ts).
 */
function engineChildren(root: string): Promise<Record<EngineName, BenchChild>> {
  children ??= Promise.all(ENGINE_NAMES.map((name) => BenchChild.start(SIDE_CHILD, [name], { cwd: root, name: `${name} engine` }))).then(
    ([switchboard, langgraph]) => ({ switchboard: switchboard as BenchChild, langgraph: langgraph as BenchChild }),
  );
  return children;
}

/** Runs measurement `key` (side-child.ts's table) once on one engine, in that engine's process. */
export async function measureSide(ctx: SuiteContext, engine: EngineName, key: string, run: number, params: Record<string, unknown> = {}): Promise<Record<string, number>> {
  const child = (await engineChildren(ctx.root))[engine];
  const { values, logs, warnings } = await child.request<{ values: Record<string, number>; logs: string[]; warnings: Record<string, number> }>(
    "measure",
    { key, run, quick: ctx.quick, params },
    300_000,
  );
  for (const line of logs) ctx.log(line);
  addWarnings(warnings);
  return values;
}

/**
 * Measures both engines in every run, alternating which goes first so a
 * slow-down of the machine (or JIT order) does not always land on one side.
 */
export async function measureBoth(ctx: SuiteContext, key: string, params: Record<string, unknown> = {}): Promise<Sides<Record<string, Spread>>> {
  const results: Sides<Array<Record<string, number>>> = { ours: [], peer: [] };
  for (let run = 0; run < ctx.runs; run++) {
    const order: Array<keyof Sides<unknown>> = run % 2 === 0 ? ["ours", "peer"] : ["peer", "ours"];
    for (const side of order) results[side].push(await measureSide(ctx, side === "ours" ? "switchboard" : "langgraph", key, run, params));
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

export function pick(sides: Sides<Record<string, Spread>>, key: string): Sides<Spread> {
  const ours = sides.ours[key];
  const peer = sides.peer[key];
  if (!ours || !peer) throw new Error(`no "${key}" measured for ${ours ? "the peer" : "Switchboard"}`);
  return { ours, peer };
}
