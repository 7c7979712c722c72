/**
 * openSqlite: the pragmas every connection runs with, and the numbered
 * migrations tracked by `user_version` (applied once, in order, each whole or
 * not at all; a newer file or another kind of file refused untouched).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUSY_TIMEOUT_MS, SqliteSchemaError, migrateSqlite, openSqlite, schemaVersionOf, type SqliteSchema } from "../../../engine/checkpoint/sqlite-open.ts";
import { CHECKPOINT_SCHEMA, SqliteSaver } from "../../../engine/checkpoint/sqlite.ts";

const v1 = { version: 1, name: "notes", sql: "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);" };
const v2 = { version: 2, name: "note authors", sql: "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'nobody';" };
const schema = (...migrations: SqliteSchema["migrations"]): SqliteSchema => ({ name: "notes", applicationId: 0x4e4f5445, migrations });

describe("openSqlite", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "switchboard-open-"));
    file = join(dir, "notes.db");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("sets WAL, synchronous=NORMAL, busy_timeout and foreign_keys on every connection", () => {
    const db = openSqlite(file, schema(v1));
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
      expect(db.pragma("busy_timeout", { simple: true })).toBe(BUSY_TIMEOUT_MS);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(schemaVersionOf(db)).toBe(1);
      expect(db.pragma("application_id", { simple: true })).toBe(0x4e4f5445);
    } finally {
      db.close();
    }
  });

  it("applies only the pending migrations, in order, and keeps the data", () => {
    const first = openSqlite(file, schema(v1));
    first.prepare("INSERT INTO notes (text) VALUES (?)").run("kept");
    first.close();
    const second = new Database(file);
    try {
      expect(migrateSqlite(second, schema(v1, v2))).toEqual({ from: 1, to: 2 });
      expect(second.prepare("SELECT text, author FROM notes").all()).toEqual([{ text: "kept", author: "nobody" }]);
      // Nothing left to do: v2's ALTER would fail if it ran twice.
      expect(migrateSqlite(second, schema(v1, v2))).toEqual({ from: 2, to: 2 });
    } finally {
      second.close();
    }
  });

  it("leaves a file whose migration fails at its last whole version", () => {
    openSqlite(file, schema(v1)).close();
    const broken = { version: 2, name: "half done", sql: "CREATE TABLE half (x); INSERT INTO no_such_table VALUES (1);" };
    expect(() => openSqlite(file, schema(v1, broken))).toThrow(/no such table/);
    const db = new Database(file);
    try {
      expect(schemaVersionOf(db)).toBe(1);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'half'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("refuses a file newer than the code, and another kind of file, without touching them", () => {
    openSqlite(file, schema(v1, v2)).close();
    expect(() => openSqlite(file, schema(v1))).toThrow(SqliteSchemaError);
    expect(() => openSqlite(file, schema(v1))).toThrow(/notes schema version 2, newer than this build knows \(1\)/);
    expect(() => openSqlite(file, CHECKPOINT_SCHEMA)).toThrow(/is not a Switchboard checkpoints file/);
    expect(() => new SqliteSaver(file)).toThrow(SqliteSchemaError);
    const db = new Database(file);
    try {
      expect(schemaVersionOf(db)).toBe(2);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'checkpoints'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("adopts a file made before versioning (user_version 0, tables present) as it is", () => {
    const old = new Database(file);
    old.exec(v1.sql);
    old.prepare("INSERT INTO notes (text) VALUES (?)").run("from before");
    old.close();
    const db = openSqlite(file, schema(v1, v2));
    try {
      expect(schemaVersionOf(db)).toBe(2);
      expect(db.prepare("SELECT text FROM notes").pluck().all()).toEqual(["from before"]);
    } finally {
      db.close();
    }
  });

  it("insists on migrations numbered 1, 2, 3 without gaps", () => {
    expect(() => openSqlite(file, schema(v1, { ...v2, version: 3 }))).toThrow(/numbered 1, 2, 3/);
  });

  it("SqliteSaver opens its own file with CHECKPOINT_SCHEMA, and refuses to adopt a connection without its tables", () => {
    const saver = new SqliteSaver(file);
    expect(schemaVersionOf(saver.db)).toBe(CHECKPOINT_SCHEMA.migrations.length);
    expect(saver.db.pragma("application_id", { simple: true })).toBe(CHECKPOINT_SCHEMA.applicationId);
    saver.close();
    const bare = new Database(":memory:");
    try {
      expect(() => new SqliteSaver(bare)).toThrow(/SqliteSaver needs the tables checkpoints, writes/);
      migrateSqlite(bare, CHECKPOINT_SCHEMA);
      expect(() => new SqliteSaver(bare)).not.toThrow();
    } finally {
      bare.close();
    }
  });
});
