/**
 * Versioned schema migrations for Postgres, shared by the PostgresSaver and the
 * hub's Postgres stores. Each component (e.g. "checkpoints", "hub") has its own
 * numbered list of migrations; the applied versions are kept in
 * `<schema>.schema_migrations`.
 *
 * Several processes may start at once on an empty database: every migration
 * run happens in one transaction holding a transaction-level advisory lock
 * keyed by the schema, so exactly one of them creates the tables and the
 * others wait, then find nothing left to do. A database migrated by a newer
 * build (a version this build does not know) is refused rather than written to.
 */

/**
 * The part of a `pg` Pool the migrator uses, spelled out so that this module
 * imports no driver (only postgres.ts does).
 */
export interface MigrationPool {
  connect(): Promise<MigrationClient>;
}

export interface MigrationClient {
  query<R extends object = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  release(): void;
}

export interface Migration {
  /** 1, 2, 3, … in order; never renumbered once released. */
  version: number;
  /** SQL run once; `{schema}` is replaced by the quoted schema name. */
  sql: string;
}

export class SchemaVersionError extends Error {
  readonly code = "SCHEMA_TOO_NEW";
  constructor(component: string, found: number, known: number) {
    super(
      `the database holds ${component} schema version ${found}, newer than this build knows (${known}); ` +
        "run a build at least as new as the one that migrated it",
    );
    this.name = "SchemaVersionError";
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a schema name (lower-case letters, digits, "_") and returns it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(`invalid Postgres schema name ${JSON.stringify(schema)}: use lower-case letters, digits and "_"`);
  }
  return `"${schema}"`;
}

/** Applies the component's missing migrations; returns the version the schema is at. */
export async function migrate(
  pool: MigrationPool,
  options: { schema: string; component: string; migrations: readonly Migration[] },
): Promise<number> {
  const { schema, component, migrations } = options;
  const q = quoteSchema(schema);
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // hashtext is stable within a Postgres major version, which is all the
    // lock needs: every node of one cluster computes the same key.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`switchboard-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${q}.schema_migrations (
         component text NOT NULL,
         version integer NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (component, version)
       )`,
    );
    const current = await currentVersion(client, q, component);
    if (current > known) throw new SchemaVersionError(component, current, known);
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      await client.query(migration.sql.replaceAll("{schema}", q));
      await client.query(`INSERT INTO ${q}.schema_migrations (component, version) VALUES ($1, $2)`, [
        component,
        migration.version,
      ]);
    }
    await client.query("COMMIT");
    return Math.max(current, known);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function currentVersion(client: MigrationClient, q: string, component: string): Promise<number> {
  const result = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${q}.schema_migrations WHERE component = $1`,
    [component],
  );
  return result.rows[0]?.version ?? 0;
}
