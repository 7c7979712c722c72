/**
 * Where a cluster node spends its time: two bench nodes (node.ts) under
 * `--cpu-prof`, `perNode` sockets on each, one unpaced bench-stream on the
 * first (SINGLE=1: one node alone); the profiles land in PROFILE_DIR
 * (default ./profiles). A tool for
 * looking, not a benchmark: `tsx test/bench/cluster/profile.ts` with
 * DATABASE_URL and REDIS_URL set.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import WebSocket from "ws";

const NODE = fileURLToPath(new URL("./node.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const dir = process.env["PROFILE_DIR"] ?? "profiles";
const perNode = Number(process.env["PER_NODE"] ?? 50);
const count = Number(process.env["COUNT"] ?? 3000);
// INTERVAL_MS > 0: paced (one event per interval), and the latency (engine write → receipt) is printed.
const intervalMs = Number(process.env["INTERVAL_MS"] ?? 0);
const PROFILE = process.env["PROFILE"] !== "0";
const databaseUrl = process.env["DATABASE_URL"];
const redisUrl = process.env["REDIS_URL"];
if (!databaseUrl || !redisUrl) throw new Error("set DATABASE_URL and REDIS_URL");
const schema = `sb_prof_${randomBytes(4).toString("hex")}`;
const env = { SWITCHBOARD_DATABASE_URL: databaseUrl, SWITCHBOARD_REDIS_URL: redisUrl, SWITCHBOARD_DATABASE_SCHEMA: schema, SWITCHBOARD_REDIS_PREFIX: `sbprof:${randomBytes(4).toString("hex")}:` };

async function start(nodeId: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...(PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${dir}/${nodeId}`] : []), "--import", "tsx", NODE], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SWITCHBOARD_NODE_ID: nodeId, ...(nodeId === "prof-single" ? {} : env) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  return { url, child };
}

// SINGLE=1: one node on the in-process bus, the same sockets per node (the benchmark's peer).
const single = process.env["SINGLE"] === "1";
const nodes = single ? [await start("prof-single")] : [await start("prof-a"), await start("prof-b")];
const thread = `prof-${randomBytes(3).toString("hex")}`;
let received = 0;
const latencies: number[] = [];
const sockets: WebSocket[] = [];
for (const node of nodes) {
  for (let i = 0; i < perNode; i++) {
    const ws = new WebSocket(`${node.url.replace(/^http/, "ws")}/threads/${thread}/stream/events`);
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: { channels: ["custom"] } }));
    ws.on("message", (d) => {
      const text = d.toString();
      if (!text.includes('"tick"')) return;
      received++;
      const t = /"t":([\d.]+)/.exec(text);
      if (t) latencies.push(performance.timeOrigin + performance.now() - Number(t[1]));
      const i = /"i":(\d+)/.exec(text);
      if (process.env["WORST"] && t && i && performance.timeOrigin + performance.now() - Number(t[1]) > 5) console.log(`slow: event ${i[1]} ${(performance.timeOrigin + performance.now() - Number(t[1])).toFixed(1)} ms`);
    });
    sockets.push(ws);
  }
}
await new Promise((r) => setTimeout(r, 500));
const t0 = performance.now();
sockets[0]!.send(JSON.stringify({ id: 2, method: "run.start", params: { assistant_id: "bench-stream", input: { count, intervalMs } } }));
while (received < count * sockets.length && performance.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
const s = (performance.now() - t0) / 1000;
console.log(`delivered ${received} of ${count * sockets.length} in ${s.toFixed(2)} s: ${(received / s / nodes.length).toFixed(0)} events/s per node`);
latencies.sort((a, b) => a - b);
const at = (q: number): string => (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(2);
console.log(`latency engine write → receipt (this process holds every socket): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
for (const ws of sockets) ws.close();
await Promise.all(nodes.map((n) => new Promise((r) => (n.child.once("exit", r), n.child.kill("SIGTERM")))));
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
await client.end();
