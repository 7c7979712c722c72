/**
 * A PostgresDatabase in a schema of its own for one test, migrated and empty.
 *
 * A new schema costs a few hundred ms of DDL (every migration, then DROP …
 * CASCADE), and the Postgres files run some 140 such tests. So a test file's
 * tests take turns on its schemas: dispose empties every table (schema_migrations
 * kept) and restarts every sequence, and the file's next test finds the schema
 * as a fresh one looks — its migrations applied, no rows, identities from 1.
 * A schema that cannot be emptied is dropped instead; the file's schemas are
 * dropped after its last test.
 */
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { onFileCleanup } from "../../../support/cleanup.ts";
import { dropSchema, TEST_POOL_CONFIG, uniqueSchemaName } from "../../../support/services.ts";

/** Emptied schemas, by database URL, waiting for the file's next test. */
const spare = new Map<string, string[]>();

export async function freshDatabase(url: string): Promise<{ db: PostgresDatabase; dispose(): Promise<void> }> {
  let schemas = spare.get(url);
  if (schemas === undefined) {
    const list: string[] = [];
    schemas = list;
    spare.set(url, list);
    onFileCleanup(async () => {
      spare.delete(url);
      for (const schema of list.splice(0)) await dropSchema(url, schema);
    });
  }
  const schema = schemas.pop() ?? uniqueSchemaName("hub");
  const db = await PostgresDatabase.open({ connectionString: url, schema, poolConfig: TEST_POOL_CONFIG });
  return {
    db,
    dispose: async () => {
      const emptied = await empty(db).then(
        () => true,
        () => false,
      );
      await db.close();
      if (emptied && spare.get(url) === schemas) schemas.push(schema);
      else await dropSchema(url, schema);
    },
  };
}

/**
 * Every table but schema_migrations emptied, every sequence restarted. DELETE
 * rather than TRUNCATE: a test leaves a few rows, and TRUNCATE's new files for
 * every table and index cost as much as a new schema. Foreign keys are not
 * checked meanwhile (replica role: every table is emptied anyway); a lock a
 * leftover connection holds fails it after a while instead of hanging.
 */
async function empty(db: PostgresDatabase): Promise<void> {
  const schema = `'${db.schema.replaceAll("'", "''")}'`;
  await db.pool.query(
    `DO $$
     DECLARE
       t record;
       s record;
     BEGIN
       PERFORM set_config('lock_timeout', '5s', true);
       PERFORM set_config('session_replication_role', 'replica', true);
       FOR t IN SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ${schema} AND tablename <> 'schema_migrations' LOOP
         EXECUTE format('DELETE FROM %I.%I', t.schemaname, t.tablename);
       END LOOP;
       FOR s IN SELECT schemaname, sequencename FROM pg_sequences WHERE schemaname = ${schema} LOOP
         EXECUTE format('ALTER SEQUENCE %I.%I RESTART', s.schemaname, s.sequencename);
       END LOOP;
     END $$`,
  );
}
