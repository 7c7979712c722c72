/**
 * Hub suite 4: the review race. 50 reviewers watch a `review` run reach its
 * interrupt; all answer at once; the time until the resumed run's first event.
 */
import { performance } from "node:perf_hooks";
import { na, type Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import { hubRow, hubThreadUrl, sharedProcesses } from "./common.ts";

const REVIEWERS = 50;
const NO_PEER = na("— (no review routing in a bare ws server)");

interface Answered {
  t0: number;
  firstEventAt: number;
  outcomes: Record<string, number>;
  responses: number;
  resumedRuns: number;
}

export const reviewSuite: Suite = {
  name: "hub-review",
  notes: [
    `**review race** — ${REVIEWERS} reviewer sockets in one client process on \`/threads/:id/stream/events\`, subscribed to \`lifecycle\` and \`input\`; the demo \`review\` assistant (no token delay) runs to its interrupt. ` +
      `When every socket has seen \`input.requested\`, all ${REVIEWERS} send \`input.respond\` for it in one loop (one tick). ` +
      "Time = from the first send to the first event of another run (the resumed one) at any of the sockets. " +
      "The outcomes row counts the answers: exactly one may win, the others must get `already_answered`; resumed runs counts distinct new run ids seen (must be 1). A fresh thread per run, one hub process.",
  ],
  async run(ctx) {
    const { hub, clients } = await sharedProcesses(ctx.root);
    const client = clients[0];
    if (!client) throw new Error("no client process");
    const runs = ctx.quick ? Math.min(ctx.runs, 3) : Math.max(ctx.runs, 5);
    const times: number[] = [];
    const winners: number[] = [];
    const resumed: number[] = [];
    const others = new Map<string, number>();
    for (let run = -1; run < runs; run++) {
      const threadId = `review-${run + 1}-${Date.now()}`;
      const group = `review-${run + 1}`;
      await client.request("open", { group, kind: "json", url: hubThreadUrl(hub.port, threadId), n: REVIEWERS, subscribe: { channels: ["lifecycle", "input"] } }, 60_000);
      await hub.child.request("go", { threadId, assistant: "review" });
      const pending = await client.request<{ interruptId: string; runId: string }>("waitInterrupt", { group, timeoutMs: 20_000 }, 30_000);
      const t = performance.now();
      const a = await client.request<Answered>("answer", { group, ...pending, timeoutMs: 15_000 }, 30_000);
      await client.request("close", { group });
      if (run < 0) continue; // warm-up
      const ms = a.firstEventAt > 0 ? a.firstEventAt - a.t0 : Number.NaN;
      ctx.log(`review race ${run + 1}: first resumed event after ${ms.toFixed(1)} ms (call ${(performance.now() - t).toFixed(0)} ms); answers ${JSON.stringify(a.outcomes)}; resumed runs ${a.resumedRuns}`);
      if (Number.isFinite(ms)) times.push(ms);
      winners.push(a.outcomes["success"] ?? 0);
      resumed.push(a.resumedRuns);
      for (const [k, v] of Object.entries(a.outcomes)) if (k !== "success") others.set(k, (others.get(k) ?? 0) + v);
    }
    const refusals = [...others].map(([k, v]) => `${k} ${v}`).join(", ") || "none";
    const rows: Row[] = [
      hubRow(`review race, ${REVIEWERS} concurrent answers: first event of the resumed run`, "time", times, NO_PEER),
      hubRow(`review race: answers accepted per race (others refused: ${refusals}, over all runs)`, "count", winners, NO_PEER, () => ({
        text: "exactly 1",
        met: winners.every((w) => w === 1),
      })),
      hubRow("review race: runs resumed per race", "count", resumed, NO_PEER, () => ({ text: "exactly 1", met: resumed.every((r) => r === 1) })),
    ];
    return rows;
  },
};
