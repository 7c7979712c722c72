/**
 * Hub suite 3: a reconnect storm. M clients follow a run; mid-run every one
 * drops at once and resubscribes with `since` = the last seq it saw. Each
 * client's seqs are then compared with the seqs the server's log published.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { na, type Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import { bareUrl, hubRow, hubThreadUrl, sharedProcesses, shares } from "./common.ts";

const NO_PEER = na("— (no replay in a bare ws server)");

export const reconnectSuite: Suite = {
  name: "hub-reconnect",
  notes: [
    "**reconnect storm** — 1,000 clients (quick: 200) in two processes each open `/threads/:id/stream/events` and subscribe to `custom` before a run that writes 150 custom events 25 ms apart (quick: 200, 5 ms apart), so the clients together receive ~40,000 frames/s. " +
      "About 0.4 s into the run every client terminates its socket in the same tick, then opens a new one and subscribes with `since` = the last seq it received (all reconnects in flight at once). " +
      "Time to all live = from the drop to the last subscribe success. When every client has seen the last event, each client's seq sequence is compared with the seqs of the run's `custom` events in the server's log: " +
      "lost = server seqs a client never received, duplicated = seqs received twice, summed over clients; out of order = seqs not above the one before. One hub process across runs, a fresh thread per run. " +
      "Peer column: after each hub storm the same clients open as many plain sockets to the bare ws server (idle, no stream), drop them all at once and reconnect — the floor that handshakes alone cost on this machine.",
  ],
  async run(ctx) {
    const { hub, bare, clients } = await sharedProcesses(ctx.root);
    const m = ctx.quick ? 200 : 1_000;
    // Paced so the clients are not saturated (~40,000 frames/s in all): the storm, not the stream, is measured.
    const count = ctx.quick ? 200 : 150;
    const intervalMs = ctx.quick ? 5 : 25;
    const runs = ctx.quick ? Math.min(ctx.runs, 2) : Math.min(ctx.runs, 3);
    const subscribe = { channels: ["custom"] };
    const liveMs: number[] = [];
    const bareMs: number[] = [];
    const lost: number[] = [];
    const dups: number[] = [];
    const disorder: number[] = [];
    for (let run = 0; run < runs; run++) {
      const threadId = `storm-${run}-${Date.now()}`;
      const group = `storm-${run}`;
      const per = shares(m, clients.length);
      await Promise.all(clients.map((c, i) => c.request("open", { group, kind: "seqs", url: hubThreadUrl(hub.port, threadId), n: per[i], subscribe }, 120_000)));
      const { runId } = await hub.child.request<{ runId: string }>("go", { threadId, count, intervalMs });
      await sleep(400);
      const t = performance.now();
      const drops = await Promise.all(clients.map((c) => c.request<{ t0: number; lastLive: number }>("drop", { group, subscribe }, 120_000)));
      const live = Math.max(...drops.map((d) => d.lastLive)) - Math.min(...drops.map((d) => d.t0));
      // Wait for the run to end, then read the server's log.
      const deadline = performance.now() + 60_000;
      while (performance.now() < deadline) {
        const status = await hub.child.request<{ status: string } | null>("runStatus", { threadId });
        if (status && status.status !== "started" && status.status !== "running") break;
        await sleep(50);
      }
      const seqs = await hub.child.request<number[]>("seqs", { threadId, runId, channels: ["custom"] });
      if (seqs.length !== count) throw new Error(`server log holds ${seqs.length} custom events, expected ${count}`);
      const checks = await Promise.all(
        clients.map((c) => c.request<{ lost: number; duplicated: number; outOfOrder: number; unexpected: number; incomplete: number }>("verify", { group, seqs, lastI: count - 1, timeoutMs: 30_000 }, 60_000)),
      );
      const sum = (k: keyof (typeof checks)[number]) => checks.reduce((a, c) => a + c[k], 0);
      ctx.log(
        `storm run ${run + 1}: ${m} clients live again in ${live.toFixed(0)} ms (drop call ${(performance.now() - t).toFixed(0)} ms); lost ${sum("lost")}, duplicated ${sum("duplicated")}, out of order ${sum("outOfOrder")}, unexpected ${sum("unexpected")}, incomplete ${sum("incomplete")}`,
      );
      liveMs.push(live);
      lost.push(sum("lost"));
      dups.push(sum("duplicated"));
      disorder.push(sum("outOfOrder"));
      await Promise.all(clients.map((c) => c.request("close", { group })));
      // The peer's floor: the same clients dropping and reopening plain sockets to a bare ws server.
      const bareGroup = `bare-storm-${run}`;
      await Promise.all(clients.map((c, i) => c.request("open", { group: bareGroup, kind: "seqs", url: bareUrl(bare.port), n: per[i] }, 120_000)));
      const bareDrops = await Promise.all(clients.map((c) => c.request<{ t0: number; lastLive: number }>("drop", { group: bareGroup }, 120_000)));
      bareMs.push(Math.max(...bareDrops.map((d) => d.lastLive)) - Math.min(...bareDrops.map((d) => d.t0)));
      await Promise.all(clients.map((c) => c.request("close", { group: bareGroup })));
    }
    const label = `reconnect storm, ${m.toLocaleString("en-US")} clients`;
    const rows: Row[] = [
      hubRow(`${label}: drop → all live again (peer: reconnected, no replay)`, "time", liveMs, bareMs),
      hubRow(`${label}: events lost (all clients)`, "count", lost, NO_PEER, () => ({ text: "0 in every run", met: Math.max(...lost) === 0 })),
      hubRow(`${label}: events duplicated (all clients)`, "count", dups, NO_PEER, () => ({ text: "0 in every run", met: Math.max(...dups) === 0 })),
      hubRow(`${label}: events out of order (all clients)`, "count", disorder, NO_PEER, () => ({ text: "0 in every run", met: Math.max(...disorder) === 0 })),
    ];
    return rows;
  },
};
