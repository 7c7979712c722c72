/**
 * Where the hub's fan-out time goes (a tool for the report, not part of
 * `npm run bench`): N observers, `count` events, the server CPU-profiled.
 *   npx tsx test/bench/hub/profile-fanout.ts [hub|send|frame] [N] [count]
 */
import { bareUrl, hubThreadUrl, shares, startClients, startServer, stopAll } from "./common.ts";

type Row = { fn?: string; file?: string; where?: string; ms: number; share: number };
const side = (process.argv[2] ?? "hub") as "hub" | "send" | "frame";
const n = Number(process.argv[3] ?? 1000);
const count = Number(process.argv[4] ?? 300);
const root = new URL("../../..", import.meta.url).pathname;
const server = await startServer(root, side === "hub" ? "hub" : "bare");
const clients = await startClients(root, 2);
try {
  const url = side === "hub" ? hubThreadUrl(server.port, "prof") : bareUrl(server.port);
  const subscribe = side === "hub" ? { channels: ["custom"] } : undefined;
  await Promise.all(clients.map((c, i) => c.request("open", { group: "g", url, n: shares(n, 2)[i], subscribe }, 120_000)));
  const go = side === "hub" ? { threadId: "prof", count } : { count, variant: side };
  // Warm-up run, then the profiled one.
  for (const profiled of [false, true]) {
    await Promise.all(clients.map((c) => c.request("arm", { group: "g", expect: count })));
    if (profiled) await server.child.request("profStart");
    const cpu0 = await server.child.request<NodeJS.CpuUsage>("cpu");
    await server.child.request("go", go);
    const got = await Promise.all(clients.map((c) => c.request<{ received: number }>("collect", { timeoutMs: 30_000 }, 40_000)));
    const cpu1 = await server.child.request<NodeJS.CpuUsage>("cpu");
    const delivered = got.reduce((a, g) => a + g.received, 0);
    const cpuMs = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000;
    if (!profiled) continue;
    const prof = await server.child.request<{ self: Row[]; files: Row[]; hubTotal: Row[] }>("profStop");
    console.log(`${side} N=${n} ×${count}: ${delivered} deliveries, server CPU ${cpuMs.toFixed(0)} ms = ${((cpuMs * 1000) / delivered).toFixed(2)} µs each`);
    console.log("top self time:");
    for (const r of prof.self) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
    console.log("self time by file:");
    for (const r of prof.files) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.file}`);
    console.log("inclusive, hub/ and engine/:");
    for (const r of prof.hubTotal) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
  }
} finally {
  await stopAll([server.child, ...clients]);
}
