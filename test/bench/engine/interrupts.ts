/**
 * Suite 4: interrupt → resume round trips on 1,000 threads — all threads are
 * paused first, then all resumed — in memory and on a SQLite file.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { cell, na, type Row } from "../lib/report.ts";
import type { Suite, SuiteContext } from "../suite.ts";
import { measureBoth, pick, ratioAtMost, type SideMeasure } from "./common.ts";
import type { EngineUnderTest, InterruptStore } from "./port.ts";

const THREADS = 1_000;

interface RoundTrip {
  threads: number;
  pauseMs: number;
  resumeMs: number;
}

/** One run: a fresh saver, warm-up threads, then pause all and resume all within the time budget. */
async function roundTrips(
  engine: EngineUnderTest,
  store: InterruptStore,
  bounds: { threads: number; warmup: number; budgetMs: number },
): Promise<RoundTrip | undefined> {
  const { threads, warmup, budgetMs } = bounds;
  const harness = await engine.interrupts(store);
  if (!harness) return undefined;
  try {
    for (let i = 0; i < warmup; i++) await harness.pause(`warm-${i}`);
    for (let i = 0; i < warmup; i++) await harness.resume(`warm-${i}`);
    // Half the budget for each phase; the resume phase covers exactly the threads that paused.
    let start = performance.now();
    let paused = 0;
    while (paused < threads) {
      await harness.pause(`thread-${paused}`);
      paused += 1;
      if (performance.now() - start >= budgetMs / 2) break;
    }
    const pauseMs = performance.now() - start;
    start = performance.now();
    for (let i = 0; i < paused; i++) await harness.resume(`thread-${i}`);
    const resumeMs = performance.now() - start;
    return { threads: paused, pauseMs, resumeMs };
  } finally {
    await harness.close();
  }
}

/** One engine, one run: params.kind is "memory" or "sqlite" (then params.dir holds the file). */
export const interruptsSide: SideMeasure = async (engine, { run, quick, params, log }) => {
  const kind = params["kind"] === "sqlite" ? "sqlite" : "memory";
  const bounds = quick ? { threads: THREADS, warmup: 20, budgetMs: 600 } : { threads: THREADS, warmup: 50, budgetMs: 40_000 };
  const store: InterruptStore = kind === "sqlite" ? { kind, file: join(String(params["dir"]), `${engine.label}-${run}.db`) } : { kind };
  const result = await roundTrips(engine, store, bounds);
  // NaN marks "this library has no such saver".
  if (!result) return { roundTrip: Number.NaN, threads: Number.NaN };
  const each = (ms: number) => (ms / result.threads).toFixed(3);
  log(`interrupt ${kind} ${engine.label}: ${result.threads} threads, pause ${each(result.pauseMs)} ms + resume ${each(result.resumeMs)} ms`);
  return { roundTrip: (result.pauseMs + result.resumeMs) / result.threads, threads: result.threads };
};

async function measureStore(ctx: SuiteContext, kind: InterruptStore["kind"]): Promise<Row> {
  const dir = kind === "sqlite" ? await mkdtemp(join(tmpdir(), "switchboard-bench-")) : undefined;
  try {
    const sides = await measureBoth(ctx, "interrupts", { kind, ...(dir ? { dir } : {}) });
    const { ours, peer } = pick(sides, "roundTrip");
    if (Number.isNaN(ours.median)) throw new Error(`Switchboard has no ${kind} saver`);
    const counts = pick(sides, "threads");
    const fewest = Math.min(...[...counts.ours.values, ...counts.peer.values].filter((n) => !Number.isNaN(n)));
    const where = kind === "memory" ? "in memory" : "SQLite file";
    return {
      metric: `interrupt → resume round trip per thread — ${where} (${fewest.toLocaleString("en-US")} threads)`,
      unit: "time",
      ours: cell(ours),
      peer: Number.isNaN(peer.median) ? na("n/a") : cell(peer),
      ...(kind === "memory" && !Number.isNaN(peer.median) ? { target: ratioAtMost(0.1)(ours, peer) } : {}),
    };
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

export const interruptsSuite: Suite = {
  name: "interrupts",
  notes: [
    `**interrupts** — graph START → \`ask\` → END where \`ask\` calls \`interrupt()\`. Per run: a fresh saver, 50 untimed warm-up round trips (quick: 20), ` +
      `then \`invoke(input)\` on up to ${THREADS.toLocaleString("en-US")} new threads until each is paused, then \`invoke(Command({ resume }))\` on each of them; ` +
      "round trip per thread = (pause phase + resume phase) ÷ threads, sequential. Each phase is bounded in time, so a slow side may cover fewer threads (the row says the fewest). " +
      "SQLite: Switchboard's `SqliteSaver` and `@langchain/langgraph-checkpoint-sqlite`'s, each on a new file in the OS temp dir; both run WAL with synchronous=NORMAL " +
      "(Switchboard sets it; better-sqlite3's build default gives the peer the same).",
  ],
  async run(ctx) {
    return [await measureStore(ctx, "memory"), await measureStore(ctx, "sqlite")];
  },
};
