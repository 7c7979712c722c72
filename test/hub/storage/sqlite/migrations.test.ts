/**
 * The hub file's migrations: they carry every checkpoint migration of the
 * engine (one file, one user_version), a fresh file ends at the last version,
 * and a hub file made before versioning is adopted with its data.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { schemaVersionOf } from "../../../../engine/checkpoint/sqlite-open.ts";
import { CHECKPOINT_MIGRATIONS, SqliteSaver } from "../../../../engine/checkpoint/sqlite.ts";
import { HUB_MIGRATIONS, HUB_SCHEMA } from "../../../../hub/storage/sqlite/migrations.ts";
import { SqliteHubStore, SqliteReviewStore, openHubDatabase } from "../../../../hub/storage/sqlite/index.ts";
import { newRun, newThread } from "../conformance/records.ts";

describe("hub migrations", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "switchboard-migrations-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("take up every checkpoint migration of the engine, in order", () => {
    // Where each engine migration's SQL appears in the hub's list (position of migration, offset in it).
    const found = CHECKPOINT_MIGRATIONS.map((m) => {
      const at = HUB_MIGRATIONS.findIndex((h) => h.sql.includes(m.sql));
      return { version: m.version, at };
    });
    expect(found.filter((f) => f.at < 0), "engine checkpoint migrations no hub migration applies").toEqual([]);
    const positions = found.map((f) => f.at);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it("bring a fresh file to the last version, with every adapter's tables", async () => {
    const db = openHubDatabase(join(dir, "switchboard.sqlite"));
    try {
      expect(schemaVersionOf(db)).toBe(HUB_MIGRATIONS.length);
      expect(db.pragma("application_id", { simple: true })).toBe(HUB_SCHEMA.applicationId);
      // Each adapter adopts the connection (it checks its tables).
      const saver = new SqliteSaver(db);
      const store = new SqliteHubStore(db);
      const reviews = new SqliteReviewStore(db);
      await store.createThread(newThread("t1"));
      expect(await saver.getTuple({ threadId: "t1", checkpointNs: "" })).toBeUndefined();
      await reviews.close();
      await store.close();
    } finally {
      db.close();
    }
  });

  it("adopt a hub file made before versioning, keeping its records", async () => {
    const file = join(dir, "switchboard.sqlite");
    const old = new Database(file);
    // What earlier builds left: the same tables, made with IF NOT EXISTS, user_version 0.
    old.exec(HUB_MIGRATIONS[0]?.sql ?? "");
    expect(schemaVersionOf(old)).toBe(0);
    old
      .prepare("INSERT INTO hub_threads (thread_id, tenant, assistant_id, status, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run("t-old", "acme", null, "idle", "{}", "2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z");
    old.close();

    const store = new SqliteHubStore(file);
    try {
      expect(schemaVersionOf(store.db)).toBe(HUB_MIGRATIONS.length);
      expect(await store.getThread("t-old", "acme")).toMatchObject({ threadId: "t-old", status: "idle" });
      await store.createRun(newRun("r1", "t-old"));
    } finally {
      await store.close();
    }
  });
});
