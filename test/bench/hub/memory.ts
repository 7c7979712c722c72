/**
 * Hub suite 5: server memory (RSS) per idle connection, hub vs bare ws, and
 * (full mode) 10,000 concurrent connections held by one hub process.
 * Fresh server processes (node --expose-gc) for every measurement.
 */
import { execFileSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { na, type Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import { bareUrl, hubRow, hubThreadUrl, sharedClients, shares, startServer, stopSharedServers } from "./common.ts";
import type { BenchChild } from "../lib/proc.ts";

const WARMUP = 100;


interface Mem {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

function fdLimit(): number {
  try {
    return Number(execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim());
  } catch {
    return Number.NaN;
  }
}

/** Opens n connections (subscribed for the hub) across the clients and returns the server's settled memory delta per connection. */
async function perConnection(kind: "hub" | "bare", root: string, clients: readonly BenchChild[], n: number, steps: number, log?: (line: string) => void): Promise<{ rss: number; heap: number; rssAll: number; held: number }> {
  const server = await startServer(root, kind, ["--expose-gc"]);
  try {
    const url = kind === "hub" ? hubThreadUrl(server.port, "idle") : bareUrl(server.port);
    const subscribe = kind === "hub" ? { channels: ["values", "messages", "lifecycle", "input"] } : undefined;
    // Warm-up: compiled code, pooled buffers and lazy singletons exist before the baseline.
    await Promise.all(clients.map((c, i) => c.request("open", { group: `${kind}-warm`, url, n: shares(WARMUP, clients.length)[i], subscribe }, 60_000)));
    await Promise.all(clients.map((c) => c.request("close", { group: `${kind}-warm` })));
    await sleep(200);
    // In steps: RSS grows in allocator-sized jumps (arenas, heap pages), and the
    // first step also pays one-time costs; the slope from step 1 to the last is
    // the steady cost of one more connection.
    const points: Mem[] = [await server.child.request<Mem>("memory")];
    const step = Math.ceil(n / steps);
    for (let k = 0; k < steps; k++) {
      const per = shares(Math.min(step, n - k * step), clients.length);
      await Promise.all(clients.map((c, i) => c.request("open", { group: `${kind}-idle-${k}`, url, n: per[i], subscribe, concurrency: 50 }, 240_000)));
      await sleep(300);
      points.push(await server.child.request<Mem>("memory"));
    }
    const { connections } = await server.child.request<{ connections: number }>("stats");
    await Promise.all(clients.flatMap((c) => Array.from({ length: steps }, (_, k) => c.request("close", { group: `${kind}-idle-${k}` }, 60_000))));
    const first = points[1] as Mem;
    const last = points[steps] as Mem;
    const span = n - step;
    log?.(`${kind}: RSS at 0..${n} connections: ${points.map((p) => (p.rss / 2 ** 20).toFixed(1)).join(" ")} MB; heap ${points.map((p) => (p.heapUsed / 2 ** 20).toFixed(1)).join(" ")} MB`);
    return { rss: (last.rss - first.rss) / span, heap: (last.heapUsed - first.heapUsed) / span, rssAll: (last.rss - (points[0] as Mem).rss) / n, held: connections };
  } finally {
    await server.child.stop();
  }
}

export const memorySuite: Suite = {
  name: "hub-memory",
  notes: [
    "**memory per idle connection** — a fresh server process (`node --expose-gc`) per side and run; 100 warm-up connections opened and closed, forced GC, RSS baseline; then N connections opened from two client processes " +
      "(Switchboard: `/threads/idle/stream/events`, each subscribed to values, messages, lifecycle and input; bare ws: plain open sockets) in 5 equal steps (quick: 2), 50 handshakes in flight per client process; after each step 0.3 s idle, forced GC, RSS and heapUsed. " +
      "Per connection = (value after the last step − value after the first step) ÷ the connections in between: RSS grows in allocator-sized jumps and the first step pays one-time costs, so the slope is the steady cost of one more connection (the heap slope is the second row). " +
      "N = 5,000 (quick: 1,000); hub and bare measured at the same time in separate processes; 3 runs (quick: 1). " +
      "At quick mode's 1,000 connections the RSS row mostly shows whether the heap happened to need new pages (a few MB at a time); read the heap row there. " +
      "**10,000 connections** (full mode only): one hub process, 10,000 subscribed sockets from two client processes; held = the hub's own connection count once all are open.",
  ],
  async run(ctx) {
    // The shared processes of the time-based suites are done; this suite wants the CPU and memory to itself.
    await stopSharedServers();
    const n = ctx.quick ? 1_000 : 5_000;
    const runs = ctx.quick ? 1 : Math.min(ctx.runs, 3);
    const steps = ctx.quick ? 2 : 5;
    const limit = fdLimit();
    ctx.log(`ulimit -n = ${limit}`);
    const clients = await sharedClients(ctx.root);
    const rss = { hub: [] as number[], bare: [] as number[] };
    const heap = { hub: [] as number[], bare: [] as number[] };
    const rows: Row[] = [];
    try {
      // Both sides at once (two server processes): RSS and heap are per process.
      for (let run = 0; run < runs; run++) {
        await Promise.all(
          (["hub", "bare"] as const).map(async (kind) => {
            const r = await perConnection(kind, ctx.root, clients, n, steps, ctx.log);
            if (r.held !== n) throw new Error(`${kind} held ${r.held} connections, expected ${n}`);
            ctx.log(`memory ${kind} run ${run + 1}: ${n} connections, ${Math.round(r.rss)} B RSS and ${Math.round(r.heap)} B heap each`);
            rss[kind].push(r.rss);
            heap[kind].push(r.heap);
          }),
        );
      }
      const label = `${n.toLocaleString("en-US")} idle connections`;
      rows.push(
        hubRow(`memory: RSS per connection, ${label}`, "bytes", rss.hub, rss.bare, (o, p) => ({
          text: "ratio ≤ 1.30",
          met: o === undefined || p === undefined ? undefined : o <= 1.3 * p,
        })),
        hubRow(`memory: JS heap per connection, ${label}`, "bytes", heap.hub, heap.bare),
      );
      if (!ctx.quick) {
        const want = 10_000;
        if (!(limit >= want + 500)) {
          rows.push({ metric: "connections held by one hub process", unit: "count", ours: na(`n/a: ulimit -n is ${limit}`), peer: na("—"), target: { text: "≥ 10,000", met: false } });
        } else {
          try {
            const r = await perConnection("hub", ctx.root, clients, want, 5, ctx.log);
            ctx.log(`10k: hub held ${r.held} connections, ${Math.round(r.rss)} B RSS each`);
            rows.push(
              hubRow(`connections held by one hub process (RSS ${Math.round(r.rss)} B each)`, "count", [r.held], na("—"), (o) => ({ text: "≥ 10,000", met: (o ?? 0) >= want })),
            );
          } catch (error) {
            ctx.log(`10k failed: ${String(error)}`);
            rows.push({ metric: "connections held by one hub process", unit: "count", ours: na(`n/a: failed (${String(error).slice(0, 80)})`), peer: na("—"), target: { text: "≥ 10,000", met: false } });
          }
        }
      }
      return rows;
    } finally {
      await Promise.all(clients.map((c) => c.request("closeAll").catch(() => undefined)));
    }
  },
};
