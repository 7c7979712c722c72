/**
 * Two hub processes on one data dir, from the outside (issue 12's lock; also
 * issue 14 item 3, "a second hub on the same data dir marks the live hub's
 * runs abandoned and accepts a second run on a busy thread", checked here from
 * the outside): the second process — `npm start`'s `tsx hub/main.ts` and
 * `switchboard serve` — refuses with "data dir … is in use by pid N" and a
 * non-zero exit, while the first hub's run, mid-draft, completes untouched:
 * no run abandoned, no event foreign to it, one review item. After kill -9 the
 * lock is gone with the process: a restart on the same dir starts at once.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ROOT, command, spawnCli, type CliSession } from "../../../client/cli/harness.ts";
import { ALL_CHANNELS, TestSocket, interruptIdsOf, isRootLifecycle, tempDataDir, textOf, wsUrl } from "../../../support/hub.ts";
import { REVIEW_DRAFT } from "../../../../hub/demo/index.ts";

const readyUrl = (line: string): string => /ready at (http:\/\/\S+)/.exec(line)?.[1] ?? "";
/** Slow enough that the refused processes start and exit while the draft still streams. */
const TOKEN_DELAY_MS = "200";
const LONG = { timeout: 60_000, interval: 20 };

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
    const env = { SWITCHBOARD_JWT_SECRET: "", SWITCHBOARD_DEMO_TOKEN_DELAY_MS: TOKEN_DELAY_MS };
    const first = spawnCli(["serve", "--port", "0", "--data-dir", dataDir], env);
    const url = readyUrl(await first.waitFor(/ready at http/));
    const pid = first.pid;
    expect(pid).toBeGreaterThan(0);

    const socket = await TestSocket.open(wsUrl({ url }, "/threads/t-locked/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    expect(await socket.request("run.start", { assistant_id: "review", input: { topic: "locks" } })).toMatchObject({ type: "success" });
    // Mid-run: the draft has started streaming.
    await socket.waitForEvent((e) => e.method === "messages", "a first token");

    const tsx = join(ROOT, "node_modules", ".bin", "tsx");
    const npmStart = command(tsx, ["hub/main.ts"], { ...env, PORT: "0", SWITCHBOARD_DATA_DIR: dataDir });
    const serve = spawnCli(["serve", "--port", "0", "--data-dir", dataDir], env);
    const ends = await Promise.all([outcome(npmStart), outcome(serve)]);
    expect(ends, "a second hub started on the locked data dir").toEqual([{ exit: 1 }, { exit: 1 }]);
    const refusal = new RegExp(`data dir ${real.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is in use by pid ${pid}\\b`);
    expect(npmStart.stderr).toMatch(refusal);
    expect(serve.stderr).toMatch(refusal);
    // Both refused while the run was still drafting.
    expect(socket.events.some(isRootLifecycle("interrupted")), "the draft ended before the second hubs exited: raise TOKEN_DELAY_MS").toBe(false);

    await vi.waitFor(() => {
      if (!socket.events.some(isRootLifecycle("interrupted"))) throw new Error("still drafting");
    }, LONG);
    expect(textOf(socket.events)).toBe(REVIEW_DRAFT);
    const [interruptId] = interruptIdsOf(socket.events);
    // The one review item is this run's, in this hub's queue.
    const open = (await (await fetch(`${url}/queues/default/items`)).json()) as { items: Array<{ interrupt_id: string }> };
    expect(open.items.map((i) => i.interrupt_id)).toEqual([interruptId]);
    expect(await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" })).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("completed"));
    // One uninterrupted, gapless stream: nothing else wrote to this thread.
    const seqs = socket.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    // The draft run ended at its interrupt, the resume completed; none abandoned.
    const runs = await runsByStatus(url);
    expect(runs).toEqual({ interrupted: 1, completed: 1 });
    await socket.close();

    // kill -9: the OS drops the lock with the process; a restart on the same dir starts at once.
    first.kill();
    await first.exited;
    const restarted = spawnCli(["serve", "--port", "0", "--data-dir", dataDir], env);
    const again = readyUrl(await restarted.waitFor(/ready at http/));
    expect(await runsByStatus(again)).toEqual(runs);
    restarted.signal("SIGTERM");
    await restarted.expectExit(0);
  });
});
