/**
 * Suite 5: heap per thread held paused at an interrupt in the in-memory saver.
 * Each measurement is a fresh child process per engine (node --expose-gc), so
 * neither library's leftovers are charged to the other.
 */
import { fileURLToPath } from "node:url";
import { runTsChild } from "../lib/child.ts";
import { summarize } from "../lib/measure.ts";
import { cell, type Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import type { EngineName } from "./engines.ts";
import { check } from "./port.ts";

const THREADS = 10_000;
const CHILD = fileURLToPath(new URL("./memory-child.ts", import.meta.url));

interface ChildResult {
  engine: string;
  threads: number;
  bytesPerThread: number;
}

function isChildResult(value: unknown): value is ChildResult {
  const v = value as Partial<ChildResult> | null;
  return typeof v === "object" && v !== null && typeof v.threads === "number" && typeof v.bytesPerThread === "number";
}

export const memorySuite: Suite = {
  name: "memory",
  notes: [
    `**memory** — in a fresh \`node --expose-gc\` process per engine and run (two at a time, as heap is per process; 3 runs, quick: 1): the interrupt graph above with the in-memory saver, 200 warm-up threads on a saver that is then dropped, ` +
      `a forced-GC heap baseline, then up to ${THREADS.toLocaleString("en-US")} new threads each paused at \`interrupt()\` (bounded in time; the row says the fewest held), ` +
      "forced GC again; bytes per thread = heapUsed delta ÷ threads. Thread ids are created inside the loop, so they are charged too.",
  ],
  async run(ctx) {
    const threads = ctx.quick ? 1_000 : THREADS;
    const budgetMs = ctx.quick ? 2_000 : 75_000;
    const warmup = 200;
    const perThread: Record<EngineName, number[]> = { switchboard: [], langgraph: [] };
    let fewest = threads;
    // Two children at a time: heap is per process, so sharing the CPU only
    // shortens how far a time-bounded child gets, not what a thread costs.
    // Fewer runs than the other suites (1 in quick mode, which has a minute for everything; 3 full): a peer child takes
    // seconds to start and about a minute to fill 10,000 threads.
    const runs = Math.min(ctx.runs, ctx.quick ? 1 : 3);
    const jobs = Array.from({ length: runs }, () => ["switchboard", "langgraph"] as const).flat();
    const parallel = 2;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < jobs.length) {
        const engine = jobs[next++] as EngineName;
        const result = await runTsChild(CHILD, [engine, String(threads), String(budgetMs), String(warmup)], {
          cwd: ctx.root,
          nodeFlags: ["--expose-gc"],
          timeoutMs: budgetMs + 60_000,
        });
        check(isChildResult(result), `memory child for ${engine} printed ${JSON.stringify(result)}`);
        fewest = Math.min(fewest, result.threads);
        perThread[engine].push(result.bytesPerThread);
        ctx.log(`memory ${result.engine}: ${result.threads} threads, ${Math.round(result.bytesPerThread)} B each`);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    const ours = summarize(perThread.switchboard);
    const row: Row = {
      metric: `heap per interrupted thread, in-memory saver (${fewest.toLocaleString("en-US")} threads)`,
      unit: "bytes",
      ours: cell(ours),
      peer: cell(summarize(perThread.langgraph)),
      target: { text: "≤ 1 KB", met: ours.median <= 1024 },
    };
    return [row];
  },
};
