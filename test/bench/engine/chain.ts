/** Suite 1: a 10-node chain of trivial nodes — the per-superstep overhead of each engine. */
import { timeLoop, type LoopBounds } from "../lib/measure.ts";
import type { Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import { measureBoth, pick, ratioAtMost, row, scale, type SideMeasure } from "./common.ts";
import { check } from "./port.ts";

const LENGTH = 10;
/** Both engines run the input as a START task first: 10 nodes take 11 supersteps. */
const SUPERSTEPS = LENGTH + 1;

/** One engine, one run: params.saver is "none" or "memory". */
export const chainSide: SideMeasure = async (engine, { quick, params, log }) => {
  const saver = params["saver"] === "memory" ? "memory" : "none";
  const bounds: LoopBounds = quick
    ? { warmup: 50, warmupMs: 100, iterations: 1000, budgetMs: 200 }
    : { warmup: 300, warmupMs: 500, iterations: 5000, budgetMs: 1000 };
  const op = engine.chain(LENGTH, saver);
  const n = await op(-1);
  check(n === LENGTH, `${engine.label}: chain ended at n=${n}, expected ${LENGTH}`);
  const sample = await timeLoop(op, bounds);
  log(`chain ${saver === "none" ? "no checkpointer" : "in-memory saver"} ${engine.label}: ${sample.ops} invokes, ${(sample.perOpMs * 1000).toFixed(0)} µs each`);
  return { invoke: sample.perOpMs };
};

export const chainSuite: Suite = {
  name: "chain",
  notes: [
    `**chain** — ${LENGTH} nodes in a line, each returning \`{ n: n + 1 }\`; \`invoke({ n: 0 })\` in a bounded loop (sequential). ` +
      `Per superstep = per invoke ÷ ${SUPERSTEPS} (both engines run the input as a START task, then one step per node). ` +
      `With a saver, every invoke uses a new thread of that library's in-memory saver (a fresh saver per run). ` +
      "All engine suites but memory run each engine in its own process, one per engine for the whole bench (test/bench/engine/side-child.ts), the bench asking each in turn: " +
      "each library changes what every promise costs in its process (LangGraph.js enables AsyncLocalStorage; Switchboard installs promise hooks), so in one shared process each would tax the other. Until 2026-11-30 both ran in the bench's own process.",
  ],
  async run(ctx) {
    const rows: Row[] = [];
    for (const saver of ["none", "memory"] as const) {
      const label = saver === "none" ? "no checkpointer" : "in-memory saver";
      const sides = await measureBoth(ctx, "chain", { saver });
      const invoke = pick(sides, "invoke");
      rows.push(row(`chain ×${LENGTH}, per invoke — ${label}`, "time", invoke));
      rows.push(
        row(
          `chain ×${LENGTH}, per superstep — ${label}`,
          "time",
          { ours: scale(invoke.ours, 1 / SUPERSTEPS), peer: scale(invoke.peer, 1 / SUPERSTEPS) },
          ratioAtMost(0.1),
        ),
      );
    }
    return rows;
  },
};
