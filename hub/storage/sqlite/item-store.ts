/**
 * The LangGraph store's items in the hub's SQLite file (table
 * hub_store_items, migration 4). A namespace is stored as its labels joined
 * by "." (labels never contain one), so a prefix is `ns = p OR ns LIKE 'p.%'`.
 */
import type Database from "better-sqlite3";
import { requireTables } from "../../../engine/checkpoint/sqlite-open.ts";
import { decodeJson, encodeJson, monotonicClock } from "../../runs/records.ts";
import {
  STORE_LIMITS,
  checkKey,
  checkNamespace,
  checkPageOf,
  checkValue,
  decodeNamespace,
  encodeNamespace,
  listNamespacesOf,
  matchesFilter,
  type ItemStore,
  type NamespaceOptions,
  type SearchOptions,
  type StoreItem,
} from "../../store/index.ts";
import { STORE_TABLES } from "./migrations.ts";
import { openHubDatabase } from "./open.ts";

interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

const fromRow = (row: ItemRow): StoreItem => ({
  namespace: decodeNamespace(row.namespace),
  key: row.key,
  value: decodeJson(row.value) as Record<string, unknown>,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** LIKE pattern of the namespaces under `prefix` ("\" escapes). */
const under = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`;
const COLUMNS = "namespace, key, value, created_at, updated_at";
const NEWEST = "ORDER BY updated_at DESC, namespace, key";

export class SqliteItemStore implements ItemStore {
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #now: () => string;
  readonly #sql;

  constructor(pathOrDb: string | Database.Database) {
    this.#ownsDb = typeof pathOrDb === "string";
    this.db = typeof pathOrDb === "string" ? openHubDatabase(pathOrDb) : pathOrDb;
    if (!this.#ownsDb) requireTables(this.db, "SqliteItemStore", STORE_TABLES);
    const db = this.db;
    this.#sql = {
      get: db.prepare<[string, string, string], ItemRow>(`SELECT ${COLUMNS} FROM hub_store_items WHERE tenant = ? AND namespace = ? AND key = ?`),
      upsert: db.prepare<[string, string, string, string, string, string]>(
        `INSERT INTO hub_store_items (tenant, namespace, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare<[string, string, string]>("DELETE FROM hub_store_items WHERE tenant = ? AND namespace = ? AND key = ?"),
      all: db.prepare<[string, number, number], ItemRow>(`SELECT ${COLUMNS} FROM hub_store_items WHERE tenant = ? ${NEWEST} LIMIT ? OFFSET ?`),
      under: db.prepare<[string, string, string, number, number], ItemRow>(
        `SELECT ${COLUMNS} FROM hub_store_items WHERE tenant = ? AND (namespace = ? OR namespace LIKE ? ESCAPE '\\') ${NEWEST} LIMIT ? OFFSET ?`,
      ),
      namespaces: db.prepare<[string, number], { namespace: string }>("SELECT DISTINCT namespace FROM hub_store_items WHERE tenant = ? ORDER BY namespace LIMIT ?"),
    };
    const latest = db.prepare<[], { t: string | null }>("SELECT MAX(updated_at) AS t FROM hub_store_items").get()?.t;
    this.#now = monotonicClock(latest ? Date.parse(latest) : -Infinity);
  }

  async put(tenant: string, namespace: readonly string[], key: string, value: Record<string, unknown>): Promise<StoreItem> {
    const ns = encodeNamespace(checkNamespace(namespace));
    checkKey(key);
    const now = this.#now();
    this.#sql.upsert.run(tenant, ns, key, encodeJson(checkValue(value)), now, now);
    return fromRow(this.#sql.get.get(tenant, ns, key) as ItemRow);
  }

  async get(tenant: string, namespace: readonly string[], key: string): Promise<StoreItem | undefined> {
    const row = this.#sql.get.get(tenant, encodeNamespace(checkNamespace(namespace)), checkKey(key));
    return row && fromRow(row);
  }

  async delete(tenant: string, namespace: readonly string[], key: string): Promise<boolean> {
    return this.#sql.delete.run(tenant, encodeNamespace(checkNamespace(namespace)), checkKey(key)).changes > 0;
  }

  async search(tenant: string, prefix: readonly string[], options: SearchOptions = {}): Promise<StoreItem[]> {
    const p = encodeNamespace(checkNamespace(prefix, "namespace_prefix", true));
    const { limit, offset } = checkPageOf(options.limit, options.offset);
    const read = (l: number, o: number): ItemRow[] => (p === "" ? this.#sql.all.all(tenant, l, o) : this.#sql.under.all(tenant, p, under(p), l, o));
    if (!options.filter) return read(limit, offset).map(fromRow);
    // A filter compares JSON values: the newest maxScan items under the prefix are read and matched here.
    return read(STORE_LIMITS.maxScan, 0).map(fromRow).filter((i) => matchesFilter(i.value, options.filter)).slice(offset, offset + limit);
  }

  async listNamespaces(tenant: string, options: NamespaceOptions = {}): Promise<string[][]> {
    if (options.prefix) checkNamespace(options.prefix, "prefix", true);
    if (options.suffix) checkNamespace(options.suffix, "suffix", true);
    return listNamespacesOf(this.#sql.namespaces.all(tenant, STORE_LIMITS.maxScan).map((r) => decodeNamespace(r.namespace)), options);
  }

  async close(): Promise<void> {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
