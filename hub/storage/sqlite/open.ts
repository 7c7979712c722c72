/**
 * Opens the hub's SQLite file: openSqlite (the pragmas, once) with the hub's
 * migrations. Every hub adapter that is handed a path comes through here, and
 * openStorage opens the data dir's file here once, after taking its lock.
 */
import type Database from "better-sqlite3";
import { openSqlite } from "../../../engine/checkpoint/sqlite-open.ts";
import { HUB_SCHEMA } from "./migrations.ts";

export function openHubDatabase(path: string): Database.Database {
  return openSqlite(path, HUB_SCHEMA);
}
