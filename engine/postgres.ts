/**
 * The engine's Postgres entry point (`switchboard/engine/postgres`): the
 * PostgresSaver and the schema migrator it runs. Kept apart from the engine's
 * main entry so that using the engine needs no database driver.
 */
export { PostgresSaver, CHECKPOINT_MIGRATIONS, type GuardQuery, type PostgresSaverOptions, type WriteGuard } from "./checkpoint/postgres.ts";
export { migrate, quoteSchema, SchemaVersionError, type Migration } from "./checkpoint/postgres-schema.ts";
