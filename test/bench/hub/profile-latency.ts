/**
 * Where fan-out latency's tail comes from (a tool for the report, not part of
 * `npm run bench`): N observers, `count` events per run, hub and bare
 * `ws.send` alternating; prints each run's server CPU per event, p50/p99,
 * the server's garbage-collection pauses during it, and its slowest events.
 *   npx tsx test/bench/hub/profile-latency.ts [N] [count] [runs]
 */
import { bareUrl, hubThreadUrl, shares, startClients, startServer, stopAll } from "./common.ts";
import { merge, quantile, type Histogram } from "./histogram.ts";

const n = Number(process.argv[2] ?? 100);
const count = Number(process.argv[3] ?? 600);
const runs = Number(process.argv[4] ?? 5);
const root = new URL("../../..", import.meta.url).pathname;
// SERVER_FLAGS="--trace-gc" (with BENCH_CHILD_STDOUT=/tmp/x to keep the output) go to both servers.
const flags = (process.env["SERVER_FLAGS"] ?? "").split(" ").filter(Boolean);
const hub = await startServer(root, "hub", flags);
const bare = await startServer(root, "bare", flags);
const clients = await startClients(root, 2);
type Gc = { count: number; totalMs: number; maxMs: number; kinds: Record<string, number> };
try {
  await Promise.all(clients.map((c, i) => c.request("open", { group: "hub", url: hubThreadUrl(hub.port, "lat"), n: shares(n, 2)[i], subscribe: { channels: ["custom"] } }, 120_000)));
  await Promise.all(clients.map((c, i) => c.request("open", { group: "bare", url: bareUrl(bare.port), n: shares(n, 2)[i] }, 120_000)));
  for (let run = 0; run <= runs; run++) {
    for (const side of ["hub", "send"] as const) {
      const server = side === "hub" ? hub : bare;
      await Promise.all(clients.map((c) => c.request("arm", { group: side === "hub" ? "hub" : "bare", expect: count })));
      await server.child.request("gc");
      const cpu0 = await server.child.request<NodeJS.CpuUsage>("cpu");
      await server.child.request("go", side === "hub" ? { threadId: "lat", count } : { count, variant: "send" });
      const got = await Promise.all(clients.map((c) => c.request<{ hist: Histogram; slowest: Array<[number, number]>; received: number; firstT: number; lastRecv: number }>("collect", { timeoutMs: 30_000 }, 40_000)));
      const cpu1 = await server.child.request<NodeJS.CpuUsage>("cpu");
      const gc = await server.child.request<Gc>("gc");
      const cpuPerEvent = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / count;
      const hist: Histogram = {};
      for (const g of got) merge(hist, g.hist);
      if (run === 0) continue; // warm-up
      const rate = got.reduce((a, g) => a + g.received, 0) / ((Math.max(...got.map((g) => g.lastRecv)) - Math.min(...got.map((g) => g.firstT))) / 1000);
      const slowest = got.flatMap((g) => g.slowest).sort((x, y) => y[1] - x[1]).slice(0, 12);
      console.log(
        `run ${run} ${side.padEnd(4)} ${Math.round(rate / 1000)}k/s cpu/event ${cpuPerEvent.toFixed(1)} µs  p50 ${quantile(hist, 0.5).toFixed(2)} ms  p99 ${quantile(hist, 0.99).toFixed(2)} ms  max ${quantile(hist, 1).toFixed(2)} ms  gc ${gc.count}× ${gc.totalMs.toFixed(1)} ms (max ${gc.maxMs.toFixed(1)}; ${Object.entries(gc.kinds).map(([k, ms]) => `${k} ${ms.toFixed(1)}`).join(", ")})`,
      );
      // Stalls show as runs of consecutive event indexes, each delayed a little less than the one before.
      console.log(`  slowest events (index: ms): ${slowest.map(([i, ms]) => `${i}: ${ms.toFixed(1)}`).join(", ")}`);
    }
  }
  console.log(`async_hooks init hooks enabled: hub ${(await hub.child.request<{ init: number }>("hooks")).init}, bare ${(await bare.child.request<{ init: number }>("hooks")).init}`);
} finally {
  await stopAll([hub.child, bare.child, ...clients]);
}
