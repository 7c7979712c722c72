/**
 * Two hub processes on one data dir, from the outside (issue 12's lock; also
 * issue 14 item 3, "a second hub on the same data dir marks the live hub's
 * runs abandoned and accepts a second run on a busy thread", checked here from
 * the outside): the second process — `npm start`'s `tsx hub/main.ts` and
 * `switchboard serve` — refuses with "data dir … is in use by pid N" and a
 * non-zero exit, while the first hub's run, mid-flight, completes untouched:
 * no run abandoned, no event foreign to it, one review item. After kill -9 the
 * lock is gone with the process: a restart on the same dir starts at once.
 *
 * Mid-flight without timing guesses: the run's first node waits at a gate (an
 * HTTP request to this test, see gated.config.ts) that opens only after both
 * second hubs have exited.
 */
import { realpathSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, command, spawnCli, type CliSession } from "../../../client/cli/harness.ts";
import { ALL_CHANNELS, TestSocket, interruptIdsOf, isRootLifecycle, tempDataDir, wsUrl } from "../../../support/hub.ts";

const readyUrl = (line: string): string => /ready at (http:\/\/\S+)/.exec(line)?.[1] ?? "";
const CONFIG = "test/hub/storage/sqlite/gated.config.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An HTTP endpoint that holds every request until `open()`. */
async function gate(): Promise<{ url: string; reached: Promise<void>; open(): void }> {
  const held: ServerResponse[] = [];
  let opened = false;
  let reach = (): void => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const server = createServer((_req, res) => {
    if (opened) res.end("done");
    else held.push(res);
    reach();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gate`,
    reached,
    open() {
      opened = true;
      for (const res of held.splice(0)) res.end("done");
    },
  };
}

/** How a second hub ends: its exit code, or the line saying it started (which it must not). */
async function outcome(child: CliSession): Promise<{ exit: number | null } | { started: string }> {
  return Promise.race([
    child.exited.then((exit) => ({ exit })),
    child.waitFor(/listening on|ready at/).then(
      (started) => ({ started }),
      () => new Promise<never>(() => {}), // exited without starting: the exit wins the race
    ),
  ]);
}

/** The hub store's runs by status, non-zero ones only, from /metrics. */
async function runsByStatus(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, status, n] of text.matchAll(/^switchboard_runs\{status="(\w+)"\} (\d+)$/gm)) if (Number(n) > 0) counts[status ?? ""] = Number(n);
  return counts;
}

describe("two hubs on one data dir", { timeout: 120_000 }, () => {
  it("the second refuses with the holder's pid and changes nothing; the first's run completes; kill -9 leaves no stale lock", async () => {
    const dataDir = tempDataDir();
    const real = realpathSync(dataDir);
    const work = await gate();
    const env = { SWITCHBOARD_JWT_SECRET: "", GATE_URL: work.url };
    const first = spawnCli(["serve", "--port", "0", "--data-dir", dataDir, "--config", CONFIG], env);
    const url = readyUrl(await first.waitFor(/ready at http/));
    const pid = first.pid;
    expect(pid).toBeGreaterThan(0);

    const socket = await TestSocket.open(wsUrl({ url }, "/threads/t-locked/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    expect(await socket.request("run.start", { assistant_id: "gated", input: { work: "pending" } })).toMatchObject({ type: "success" });
    // Mid-run: the first node is waiting at the gate.
    await work.reached;

    const tsx = join(ROOT, "node_modules", ".bin", "tsx");
    const npmStart = command(tsx, ["hub/main.ts"], { ...env, PORT: "0", SWITCHBOARD_DATA_DIR: dataDir });
    const serve = spawnCli(["serve", "--port", "0", "--data-dir", dataDir, "--config", CONFIG], env);
    const ends = await Promise.all([outcome(npmStart), outcome(serve)]);
    expect(ends, "a second hub started on the locked data dir").toEqual([{ exit: 1 }, { exit: 1 }]);
    const refusal = new RegExp(`data dir ${real.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is in use by pid ${pid}\\b`);
    expect(npmStart.stderr).toMatch(refusal);
    expect(serve.stderr).toMatch(refusal);
    // Both refused while the run was still in its first node.
    expect(socket.events.filter((e) => e.method === "lifecycle" && e.params.namespace.length === 0).map((e) => e.method === "lifecycle" && e.params.data.event)).toEqual(["started", "running"]);

    work.open();
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    expect(await socket.request("state.get", { namespace: [] })).toMatchObject({ type: "success", result: { values: { work: "done" } } });
    const [interruptId] = interruptIdsOf(socket.events);
    // The one review item is this run's, in this hub's queue.
    const open = (await (await fetch(`${url}/queues/default/items`)).json()) as { items: Array<{ interrupt_id: string }> };
    expect(open.items.map((i) => i.interrupt_id)).toEqual([interruptId]);
    expect(await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" })).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("completed"));
    // One uninterrupted, gapless stream: nothing else wrote to this thread.
    const seqs = socket.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    // The first run ended at its interrupt, the resume completed; none abandoned.
    const runs = await runsByStatus(url);
    expect(runs).toEqual({ interrupted: 1, completed: 1 });
    await socket.close();

    // kill -9: the OS drops the lock with the process; a restart on the same dir starts at once.
    first.kill();
    await first.exited;
    const restarted = spawnCli(["serve", "--port", "0", "--data-dir", dataDir, "--config", CONFIG], env);
    const again = readyUrl(await restarted.waitFor(/ready at http/));
    expect(await runsByStatus(again)).toEqual(runs);
    restarted.signal("SIGTERM");
    await restarted.expectExit(0);
  });
});
