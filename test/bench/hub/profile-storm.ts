/**
 * Where the hub's time goes in a reconnect storm (a tool for the report, not
 * part of `npm run bench`): M subscribed clients drop and resubscribe with since.
 *   npx tsx test/bench/hub/profile-storm.ts [M]
 */
import { setTimeout as sleep } from "node:timers/promises";
import { hubThreadUrl, shares, startClients, startServer, stopAll } from "./common.ts";

type Row = { fn?: string; file?: string; where?: string; ms: number; share: number };
const m = Number(process.argv[2] ?? 1000);
const root = new URL("../../..", import.meta.url).pathname;
const server = await startServer(root, "hub");
const clients = await startClients(root, 2);
try {
  for (const profiled of [false, true]) {
    const threadId = `prof-${profiled}`;
    const subscribe = { channels: ["custom"] };
    await Promise.all(clients.map((c, i) => c.request("open", { group: threadId, kind: "seqs", url: hubThreadUrl(server.port, threadId), n: shares(m, 2)[i], subscribe }, 120_000)));
    await server.child.request("go", { threadId, count: 150, intervalMs: 25 });
    await sleep(400);
    if (profiled) await server.child.request("profStart");
    const drops = await Promise.all(clients.map((c) => c.request<{ t0: number; lastLive: number }>("drop", { group: threadId, subscribe }, 120_000)));
    const live = Math.max(...drops.map((d) => d.lastLive)) - Math.min(...drops.map((d) => d.t0));
    if (!profiled) continue;
    const prof = await server.child.request<{ self: Row[]; files: Row[]; hubTotal: Row[] }>("profStop");
    console.log(`storm of ${m}: all live after ${live.toFixed(0)} ms`);
    console.log("top self time:");
    for (const r of prof.self.slice(0, 25)) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
    console.log("self time by file:");
    for (const r of prof.files.slice(0, 15)) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.file}`);
    console.log("inclusive, hub/ and engine/:");
    for (const r of prof.hubTotal.slice(0, 25)) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
  }
} finally {
  await stopAll([server.child, ...clients]);
}
