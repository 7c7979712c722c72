/**
 * The one way Switchboard opens a SQLite file: the pragmas, set once, and the
 * numbered schema migrations, tracked by the file's `user_version`. The
 * engine's SqliteSaver opens its own file with it (CHECKPOINT_SCHEMA), and the
 * hub opens its data-dir file with it (hub/storage/sqlite/migrations.ts), so
 * both live here, below the hub (the engine imports nothing from it).
 *
 * The migration scheme, kept simple so other backends can mirror it:
 * - a schema is an ordered list of migrations numbered 1, 2, 3, … with no gaps;
 *   a migration is SQL that is never edited once released (add a new one);
 * - `PRAGMA user_version` holds the number of the last one applied (0 = none);
 * - each pending migration runs in its own IMMEDIATE transaction together with
 *   the `user_version` bump, so a crash leaves the file at a whole version and
 *   two processes that open a fresh file at once apply each step once;
 * - a file newer than the code (user_version past the last known) is refused;
 * - `PRAGMA application_id` names what kind of file it is (checkpoints only, or
 *   a hub file), so one kind is never migrated as the other. 0 means a fresh
 *   file or one made before versioning: migration 1 is written with
 *   `IF NOT EXISTS`, so it adopts such a file as it is.
 */
import Database from "better-sqlite3";

export interface SqliteMigration {
  /** 1, 2, 3, …: the `user_version` the file has once this migration is applied. */
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export interface SqliteSchema {
  /** What the file is, for messages ("checkpoints", "hub"). */
  readonly name: string;
  /** Stored in `PRAGMA application_id`: a positive 32-bit number per kind of file. */
  readonly applicationId: number;
  readonly migrations: readonly SqliteMigration[];
}

/** A file that cannot be used with this build's schema (another kind of file, newer, or not migrated). */
export class SqliteSchemaError extends Error {
  readonly code = "sqlite_schema";
  constructor(message: string) {
    super(message);
    this.name = "SqliteSchemaError";
  }
}

/** How long a statement waits for another connection's write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) the file at `path`, sets the pragmas and brings
 * its schema up to date. The caller owns the returned connection.
 */
export function openSqlite(path: string, schema: SqliteSchema): Database.Database {
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    setPragmas(db);
    migrateSqlite(db, schema, path);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The pragmas every Switchboard connection runs with. Outside any transaction (journal_mode cannot change inside one). */
export function setPragmas(db: Database.Database): void {
  // WAL: readers never block the writer, and one fsync per commit.
  db.pragma("journal_mode = WAL");
  // With WAL, NORMAL cannot corrupt the file; a power loss may only drop the last commits.
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma("foreign_keys = ON");
}

/**
 * Applies the schema's pending migrations. Returns the versions before and
 * after; throws SqliteSchemaError for a file of another kind or a newer one.
 */
export function migrateSqlite(db: Database.Database, schema: SqliteSchema, label = db.name): { from: number; to: number } {
  const latest = checkMigrations(schema);
  const from = readVersion(db, schema, label, latest);
  for (const migration of schema.migrations) {
    if (migration.version <= from) continue;
    db.transaction(() => {
      // Read again under the write lock: another connection may have applied it meanwhile.
      if (readVersion(db, schema, label, latest) >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`application_id = ${schema.applicationId}`);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
  return { from, to: latest };
}

/** The schema version of an open file (its `user_version`). */
export function schemaVersionOf(db: Database.Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * For stores that adopt a connection opened elsewhere: the file must already
 * carry their tables (openSqlite with a schema that creates them).
 */
export function requireTables(db: Database.Database, owner: string, tables: readonly string[]): void {
  const have = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .all()
      .map((row) => row.name),
  );
  const missing = tables.filter((t) => !have.has(t));
  if (missing.length > 0) {
    throw new SqliteSchemaError(
      `${owner} needs the tables ${missing.join(", ")} in ${db.name}: open the file with its schema's migrations (openSqlite) before handing the connection over`,
    );
  }
}

function readVersion(db: Database.Database, schema: SqliteSchema, label: string, latest: number): number {
  const appId = db.pragma("application_id", { simple: true }) as number;
  if (appId !== 0 && appId !== schema.applicationId) {
    throw new SqliteSchemaError(`${label} is not a Switchboard ${schema.name} file (application_id ${appId}, expected ${schema.applicationId})`);
  }
  const version = schemaVersionOf(db);
  if (version > latest) {
    throw new SqliteSchemaError(
      `${label} has ${schema.name} schema version ${version}, newer than this build knows (${latest}): run a newer Switchboard, or restore a backup`,
    );
  }
  return version;
}

function checkMigrations(schema: SqliteSchema): number {
  schema.migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${schema.name} migrations must be numbered 1, 2, 3, …: found ${m.version} at position ${i + 1}`);
  });
  return schema.migrations.length;
}
