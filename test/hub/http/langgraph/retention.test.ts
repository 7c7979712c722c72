/**
 * Retention: `threads.delete` removes the thread with everything of it — its
 * checkpoints and writes, thread and run records, review items and their
 * audit, its event log — read back from the real SQLite file; other threads
 * keep theirs. With `retention.threadTtlMs`, idle threads are swept the same way.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { DB_FILE_NAME } from "../../../../hub/config.ts";
import { TestSocket, WAIT, tempDataDir, wsUrl } from "../../../support/hub.ts";
import { lgHub, sdk } from "./helpers.ts";

/** Rows of the thread in each table of the hub's file (the audit trail is keyed by interrupt id: auditRows). */
function rowsOf(file: string, threadId: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string): number => (db.prepare<[string], { n: number }>(sql).get(threadId) as { n: number }).n;
    return {
      checkpoints: count("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?"),
      writes: count("SELECT count(*) AS n FROM writes WHERE thread_id = ?"),
      threads: count("SELECT count(*) AS n FROM hub_threads WHERE thread_id = ?"),
      runs: count("SELECT count(*) AS n FROM hub_runs WHERE thread_id = ?"),
      reviewItems: count("SELECT count(*) AS n FROM hub_review_items WHERE thread_id = ?"),
    };
  } finally {
    db.close();
  }
}

function auditRows(file: string, interruptIds: readonly string[]): number {
  const db = new Database(file, { readonly: true });
  try {
    return interruptIds.reduce((n, id) => n + (db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM hub_review_audit WHERE interrupt_id = ?").get(id) as { n: number }).n, 0);
  } finally {
    db.close();
  }
}

describe("retention", () => {
  it("threads.delete removes checkpoints, records, review items with their audit, and the log; other threads keep theirs", async () => {
    const dataDir = tempDataDir();
    const hub = await lgHub({ dataDir });
    const file = join(dataDir, DB_FILE_NAME);
    const client = await sdk(hub);
    const doomed = await client.threads.create();
    const kept = await client.threads.create();
    const paused = (await client.runs.wait(doomed.thread_id, "parallel-review", { input: {} })) as { __interrupt__: Array<{ id: string }> };
    await client.runs.wait(kept.thread_id, "review", { input: { topic: "kept" } });
    const ids = paused.__interrupt__.map((i) => i.id);
    // One answered (an audit trail with an answer), two pending.
    await client.runs.create(doomed.thread_id, "parallel-review", { command: { resume: { [ids[0]!]: "yes" } } });

    const before = rowsOf(file, doomed.thread_id);
    expect(before).toMatchObject({ threads: 1, runs: 1, reviewItems: 3 });
    expect(before.checkpoints).toBeGreaterThan(0);
    expect(auditRows(file, ids)).toBeGreaterThan(3);
    const keptBefore = rowsOf(file, kept.thread_id);

    // A watcher of the thread's review queue sees the pending questions cancelled.
    const socket = await TestSocket.open(wsUrl(hub, `/threads/${doomed.thread_id}/stream/events`));
    await socket.subscribe({ channels: ["input"] });

    await client.threads.delete(doomed.thread_id);
    expect(rowsOf(file, doomed.thread_id)).toEqual({ checkpoints: 0, writes: 0, threads: 0, runs: 0, reviewItems: 0 });
    expect(auditRows(file, ids)).toBe(0);
    expect(rowsOf(file, kept.thread_id)).toEqual(keptBefore);
    await vi.waitFor(() => expect(socket.events.filter((e) => e.method === "input.cancelled")).toHaveLength(2), WAIT);

    await expect(client.threads.get(doomed.thread_id)).rejects.toMatchObject({ status: 404 });
    expect((await fetch(`${hub.url}/reviews/${ids[1]}`)).status).toBe(404);
    // The id can be used again: a new thread, with nothing of the old one (no log replay, no state).
    const again = await client.threads.create({ threadId: doomed.thread_id });
    expect(again).toMatchObject({ status: "idle", values: {}, interrupts: {} });
    expect((await client.threads.getState(doomed.thread_id)).checkpoint.checkpoint_id).toBeNull();
    const late = await TestSocket.open(wsUrl(hub, `/threads/${doomed.thread_id}/stream/events`));
    await late.subscribe({ channels: ["lifecycle", "values", "input"] });
    expect(late.events).toEqual([]);
  });

  it("a running thread is cancelled, then deleted", async () => {
    const hub = await lgHub({ dataDir: tempDataDir(), demoTokenDelayMs: 20 });
    const client = await sdk(hub);
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "review", { input: { topic: "long" } });
    await vi.waitFor(async () => expect((await client.threads.get(thread.thread_id)).status).toBe("busy"), WAIT);
    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toMatchObject({ status: 404 });
  });

  it("retention.threadTtlMs sweeps idle threads with everything of them, and keeps recently used ones", async () => {
    const dataDir = tempDataDir();
    const hub = await lgHub({ dataDir, retention: { threadTtlMs: 1_500, sweepIntervalMs: 100 } });
    const file = join(dataDir, DB_FILE_NAME);
    const client = await sdk(hub);
    const idle = await client.threads.create();
    const asked = (await client.runs.wait(idle.thread_id, "review", { input: { topic: "idle" } })) as { __interrupt__: Array<{ id: string }> };
    const idleAsked = asked.__interrupt__.map((i) => i.id);
    expect(auditRows(file, idleAsked)).toBeGreaterThan(0);
    const busyish = await client.threads.create();
    // Touched again and again: never idle for the TTL.
    const touching = setInterval(() => void client.threads.update(busyish.thread_id, { metadata: { at: Date.now() } }).catch(() => {}), 300);
    try {
      await vi.waitFor(async () => expect(await client.threads.count()).toBe(1), { timeout: 10_000, interval: 100 });
    } finally {
      clearInterval(touching);
    }
    expect((await client.threads.search()).map((t) => t.thread_id)).toEqual([busyish.thread_id]);
    expect(rowsOf(file, idle.thread_id)).toEqual({ checkpoints: 0, writes: 0, threads: 0, runs: 0, reviewItems: 0 });
    expect(auditRows(file, idleAsked)).toBe(0);
  });

  it("retention config is checked", async () => {
    await expect(lgHub({ retention: { threadTtlMs: 0 } })).rejects.toThrow(/threadTtlMs/);
  });
});
