/** SqliteHubStore against the conformance suite, on a real file in a fresh temp dir. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../../../engine/checkpoint/sqlite.ts";
import type { Checkpoint } from "../../../../engine/checkpoint/types.ts";
import { HubRecordExistsError } from "../../../../hub/runs/index.ts";
import { SqliteHubStore } from "../../../../hub/storage/sqlite/hub-store.ts";
import { openHubDatabase } from "../../../../hub/storage/sqlite/open.ts";
import { SqliteSchemaError } from "../../../../engine/checkpoint/sqlite-open.ts";
import type { HubStore } from "../../../../hub/runs/store.ts";
import { describeHubStoreConformance } from "../conformance/hub-store.ts";
import { newRun, newThread } from "../conformance/records.ts";

async function tempDir(): Promise<{ path: string; dispose(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "switchboard-hub-store-"));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

describeHubStoreConformance("SqliteHubStore", async () => {
  const dir = await tempDir();
  const store = new SqliteHubStore(join(dir.path, "hub.db"));
  return {
    store,
    dispose: async () => {
      await store.close();
      await dir.dispose();
    },
  };
});

/** Everything a client can read back from a store, for before/after comparisons. */
async function snapshot(store: HubStore) {
  return {
    acme: await store.listThreads("acme"),
    globex: await store.listThreads("globex"),
    t1: await store.getThread("t1", "acme"),
    runs: await store.listRuns("t1"),
    unfinished: await store.listUnfinishedRuns(),
    counts: await store.countRunsByStatus(),
  };
}

describe("SqliteHubStore file", () => {
  let dir: { path: string; dispose(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.dispose();
  });

  it("finds the same records after the file is closed and reopened", async () => {
    const file = join(dir.path, "hub.db");
    const first = new SqliteHubStore(file);
    expect(first.db.pragma("journal_mode", { simple: true })).toBe("wal");
    await first.createThread(newThread("t1", { metadata: { title: "Ünïcode ✓", n: 0, ok: false } }));
    await first.createThread(newThread("t2", { tenant: "globex" }));
    await first.updateThread("t1", { status: "busy", assistantId: "agent" });
    await first.createRun(newRun("r1", "t1", { input: null }));
    await first.updateRun("r1", { status: "running" });
    await first.updateRun("r1", { status: "failed", error: "boom" });
    await first.createRun(newRun("r2", "t1"));
    await first.updateRun("r2", { status: "running" });
    await first.createRun(newRun("r3", "t1"));
    const before = await snapshot(first);
    await first.close();
    expect(first.db.open).toBe(false);

    const second = new SqliteHubStore(file);
    try {
      expect(await snapshot(second)).toEqual(before);
      expect(before.unfinished.map((r) => r.runId)).toEqual(["r2", "r3"]);
      await expect(second.createThread(newThread("t1"))).rejects.toBeInstanceOf(HubRecordExistsError);
      await expect(second.createRun(newRun("r1", "t1"))).rejects.toBeInstanceOf(HubRecordExistsError);
      // What a restarted hub does first: mark the runs the old process left behind.
      for (const run of await second.listUnfinishedRuns()) await second.updateRun(run.runId, { status: "abandoned" });
      await second.createRun(newRun("r4", "t1"));
      expect((await second.listRuns("t1")).map((r) => [r.runId, r.status])).toEqual([
        ["r4", "pending"],
        ["r3", "abandoned"],
        ["r2", "abandoned"],
        ["r1", "failed"],
      ]);
    } finally {
      await second.close();
    }
  });

  it("a reopened store stamps past the latest time already stored, so newest-first stays true", async () => {
    const file = join(dir.path, "ahead.db");
    const first = new SqliteHubStore(file);
    await first.createThread(newThread("t1"));
    await first.createRun(newRun("r1", "t1"));
    // Many writes within one millisecond run a store's clock ahead of Date.now(); make that certain.
    const ahead = new Date(Date.now() + 60_000).toISOString();
    first.db.prepare("UPDATE hub_runs SET created_at = ? WHERE run_id = 'r1'").run(ahead);
    await first.close();

    const second = new SqliteHubStore(file);
    try {
      const r2 = await second.createRun(newRun("r2", "t1"));
      expect(r2.createdAt > ahead).toBe(true);
      expect((await second.listRuns("t1")).map((r) => r.runId)).toEqual(["r2", "r1"]);
    } finally {
      await second.close();
    }
  });

  it("refuses to adopt a connection whose file lacks its tables (a checkpoints-only file)", () => {
    const saver = new SqliteSaver(join(dir.path, "checkpoints.db"));
    try {
      expect(() => new SqliteHubStore(saver.db)).toThrow(SqliteSchemaError);
      expect(() => new SqliteHubStore(saver.db)).toThrow(/needs the tables hub_threads, hub_runs/);
    } finally {
      saver.close();
    }
  });

  it("shares the hub's Database with SqliteSaver under hub_ tables, and leaves it open on close", async () => {
    const db = openHubDatabase(join(dir.path, "shared.db"));
    const saver = new SqliteSaver(db);
    const store = new SqliteHubStore(db);
    const cp: Checkpoint = {
      v: 1,
      id: "0001",
      ts: new Date().toISOString(),
      channelValues: {},
      channelVersions: {},
      versionsSeen: {},
    };
    await saver.put({ threadId: "t1", checkpointNs: "" }, cp, { source: "input", step: -1, parents: {} });
    await store.createThread(newThread("t1"));
    await store.createRun(newRun("r1", "t1"));

    const names = saver.db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE name LIKE 'hub\\_%' ESCAPE '\\' AND name NOT LIKE 'hub\\_review\\_%' ESCAPE '\\' AND name NOT LIKE 'hub\\_store\\_%' ESCAPE '\\' AND name NOT LIKE 'hub\\_webhook\\_%' ESCAPE '\\' AND name NOT LIKE 'hub\\_answer\\_%' ESCAPE '\\' ORDER BY name",
      )
      .all()
      .map((r) => r.name);
    expect(names).toEqual([
      "hub_runs",
      "hub_runs_status_created",
      "hub_runs_thread_created",
      "hub_threads",
      "hub_threads_tenant_created",
      "hub_threads_tenant_status",
    ]);

    // Deleting the hub's thread leaves the engine's checkpoints to the checkpointer.
    expect(await store.deleteThread("t1", "acme")).toBe(true);
    expect((await saver.getTuple({ threadId: "t1", checkpointNs: "" }))?.checkpoint.id).toBe("0001");

    await store.close();
    saver.close();
    expect(db.open).toBe(true);
    expect(await store.getThread("t1", "acme")).toBeUndefined();
    db.close();
  });
});
