/** Suite 2: fan-out 1 → 100 parallel tasks → join into a list reducer. */
import { timeLoop, type LoopBounds } from "../lib/measure.ts";
import type { Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import { measureBoth, pick, row, type SideMeasure } from "./common.ts";
import { check } from "./port.ts";

const WIDTH = 100;

/** One engine, one run: params.via is "nodes" or "send". */
export const fanoutSide: SideMeasure = async (engine, { quick, params, log }) => {
  const via = params["via"] === "send" ? "send" : "nodes";
  const bounds: LoopBounds = quick
    ? { warmup: 3, warmupMs: 100, iterations: 200, budgetMs: 200 }
    : { warmup: 20, warmupMs: 500, iterations: 1000, budgetMs: 1000 };
  const op = engine.fanout(WIDTH, via);
  const joined = await op(-1);
  check(joined === WIDTH, `${engine.label}: join saw ${joined} items, expected ${WIDTH}`);
  const sample = await timeLoop(op, bounds);
  log(`fan-out ${via === "nodes" ? "static nodes" : "Send"} ${engine.label}: ${sample.ops} invokes, ${sample.perOpMs.toFixed(2)} ms each`);
  return { invoke: sample.perOpMs };
};

export const fanoutSuite: Suite = {
  name: "fanout",
  notes: [
    `**fan-out** — \`fan\` → ${WIDTH} parallel tasks each appending its index to a list reducer (\`a.concat(b)\`) → \`join\`, no checkpointer. ` +
      `"static nodes": ${WIDTH} nodes with an edge from \`fan\` and one join edge from all of them; ` +
      `"Send": one worker node and ${WIDTH} \`Send\`s from a conditional edge. Time per invoke; the join must see ${WIDTH} items.`,
  ],
  async run(ctx) {
    const rows: Row[] = [];
    for (const via of ["nodes", "send"] as const) {
      const label = via === "nodes" ? "static nodes" : "Send";
      const sides = await measureBoth(ctx, "fanout", { via });
      rows.push(row(`fan-out 1→${WIDTH}→join (${label}), per invoke`, "time", pick(sides, "invoke")));
    }
    return rows;
  },
};
