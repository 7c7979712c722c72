/**
 * Where a hub connection's memory goes (a tool for the report, not part of
 * `npm run bench`): opens N connections to a fresh server and prints the
 * memoryUsage deltas and the heap-snapshot census diff per connection.
 *   npx tsx test/bench/hub/profile-memory.ts [hub|bare] [N] [--no-subscribe]
 */
import { setTimeout as sleep } from "node:timers/promises";
import { bareUrl, hubThreadUrl, startClients, startServer, stopAll } from "./common.ts";

const kind = process.argv[2] === "bare" ? "bare" : "hub";
const n = Number(process.argv[3] ?? 2000);
const subscribeIt = !process.argv.includes("--no-subscribe");
const root = new URL("../../..", import.meta.url).pathname;
const server = await startServer(root, kind, ["--expose-gc"]);
const [client] = await startClients(root, 1);
if (!client) throw new Error("no client");
try {
  const url = kind === "hub" ? hubThreadUrl(server.port, "idle") : bareUrl(server.port);
  const subscribe = kind === "hub" && subscribeIt ? { channels: ["values", "messages", "lifecycle", "input"] } : undefined;
  await client.request("open", { group: "warm", url, n: 100, subscribe });
  await client.request("close", { group: "warm" });
  await sleep(200);
  const m0 = await server.child.request<Record<string, number>>("memory");
  const c0 = await server.child.request<Record<string, [number, number]>>("census");
  await client.request("open", { group: "idle", url, n, subscribe, concurrency: Number(process.env.CONC ?? 200) }, 240_000);
  await sleep(500);
  const m1 = await server.child.request<Record<string, number>>("memory");
  const c1 = await server.child.request<Record<string, [number, number]>>("census");
  console.log(`${kind}${subscribe ? " (subscribed)" : ""}, ${n} connections; per connection:`);
  for (const k of Object.keys(m1)) console.log(`  ${k.padEnd(13)} ${(((m1[k] ?? 0) - (m0[k] ?? 0)) / n).toFixed(0)} B`);
  const diff = Object.keys(c1)
    .map((k) => ({ k, count: ((c1[k]?.[0] ?? 0) - (c0[k]?.[0] ?? 0)) / n, bytes: ((c1[k]?.[1] ?? 0) - (c0[k]?.[1] ?? 0)) / n }))
    .filter((d) => Math.abs(d.bytes) >= 16)
    .sort((a, b) => b.bytes - a.bytes);
  console.log("heap census diff per connection (count, self bytes):");
  let sum = 0;
  for (const d of diff.slice(0, 60)) console.log(`  ${d.bytes.toFixed(0).padStart(6)} B  ${d.count.toFixed(2).padStart(6)}×  ${d.k}`);
  // Indented rows break "(array)" down by owner; they are already in its row.
  for (const d of diff) if (!d.k.startsWith(" ")) sum += d.bytes;
  console.log(`  total ${sum.toFixed(0)} B`);
} finally {
  await stopAll([server.child, client]);
}
