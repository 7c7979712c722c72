/**
 * The engine's SQLite entry point (`switchboard/engine/sqlite`): the
 * SqliteSaver, on the native better-sqlite3 driver. Kept apart from the
 * engine's main entry so that using the engine needs no native module.
 */
export { SqliteSaver } from "./checkpoint/sqlite.ts";
