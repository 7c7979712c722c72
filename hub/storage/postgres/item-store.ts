/**
 * The LangGraph store's items in Postgres (table hub_store_items, hub
 * migration 4), shared by every node. As in SQLite, a namespace is stored as
 * its labels joined by ".", and a prefix is `ns = p OR ns LIKE 'p.%'`.
 */
import { monotonicClock } from "../../runs/records.ts";
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
import type { PostgresDatabase } from "./database.ts";

interface ItemRow {
  namespace: string;
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const fromRow = (row: ItemRow): StoreItem => ({ namespace: decodeNamespace(row.namespace), key: row.key, value: row.value, createdAt: row.created_at, updatedAt: row.updated_at });
const under = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`;
const COLUMNS = "namespace, key, value, created_at, updated_at";
const NEWEST = "ORDER BY updated_at DESC, namespace, key";

export class PostgresItemStore implements ItemStore {
  readonly #db: PostgresDatabase;
  readonly #t: string;
  readonly #now: () => string;

  static async open(db: PostgresDatabase): Promise<PostgresItemStore> {
    const { rows } = await db.pool.query<{ t: string | null }>(`SELECT max(updated_at) AS t FROM ${db.q}.hub_store_items`);
    const latest = rows[0]?.t ?? null;
    return new PostgresItemStore(db, monotonicClock(latest === null ? -Infinity : Date.parse(latest)));
  }

  private constructor(db: PostgresDatabase, now: () => string) {
    this.#db = db;
    this.#t = `${db.q}.hub_store_items`;
    this.#now = now;
  }

  async put(tenant: string, namespace: readonly string[], key: string, value: Record<string, unknown>): Promise<StoreItem> {
    const ns = encodeNamespace(checkNamespace(namespace));
    checkKey(key);
    const now = this.#now();
    const { rows } = await this.#db.pool.query<ItemRow>(
      `INSERT INTO ${this.#t} (tenant, namespace, key, value, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (tenant, namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
       RETURNING ${COLUMNS}`,
      [tenant, ns, key, JSON.stringify(checkValue(value)), now],
    );
    return fromRow(rows[0] as ItemRow);
  }

  async get(tenant: string, namespace: readonly string[], key: string): Promise<StoreItem | undefined> {
    const { rows } = await this.#db.pool.query<ItemRow>(`SELECT ${COLUMNS} FROM ${this.#t} WHERE tenant = $1 AND namespace = $2 AND key = $3`, [
      tenant,
      encodeNamespace(checkNamespace(namespace)),
      checkKey(key),
    ]);
    return rows[0] && fromRow(rows[0]);
  }

  async delete(tenant: string, namespace: readonly string[], key: string): Promise<boolean> {
    const { rowCount } = await this.#db.pool.query(`DELETE FROM ${this.#t} WHERE tenant = $1 AND namespace = $2 AND key = $3`, [tenant, encodeNamespace(checkNamespace(namespace)), checkKey(key)]);
    return (rowCount ?? 0) > 0;
  }

  async search(tenant: string, prefix: readonly string[], options: SearchOptions = {}): Promise<StoreItem[]> {
    const p = encodeNamespace(checkNamespace(prefix, "namespace_prefix", true));
    const { limit, offset } = checkPageOf(options.limit, options.offset);
    const read = async (l: number, o: number): Promise<StoreItem[]> => {
      const { rows } = p === ""
        ? await this.#db.pool.query<ItemRow>(`SELECT ${COLUMNS} FROM ${this.#t} WHERE tenant = $1 ${NEWEST} LIMIT $2 OFFSET $3`, [tenant, l, o])
        : await this.#db.pool.query<ItemRow>(`SELECT ${COLUMNS} FROM ${this.#t} WHERE tenant = $1 AND (namespace = $2 OR namespace LIKE $3) ${NEWEST} LIMIT $4 OFFSET $5`, [tenant, p, under(p), l, o]);
      return rows.map(fromRow);
    };
    if (!options.filter) return read(limit, offset);
    return (await read(STORE_LIMITS.maxScan, 0)).filter((i) => matchesFilter(i.value, options.filter)).slice(offset, offset + limit);
  }

  async listNamespaces(tenant: string, options: NamespaceOptions = {}): Promise<string[][]> {
    if (options.prefix) checkNamespace(options.prefix, "prefix", true);
    if (options.suffix) checkNamespace(options.suffix, "suffix", true);
    const { rows } = await this.#db.pool.query<{ namespace: string }>(`SELECT DISTINCT namespace FROM ${this.#t} WHERE tenant = $1 ORDER BY namespace LIMIT $2`, [tenant, STORE_LIMITS.maxScan]);
    return listNamespacesOf(rows.map((r) => decodeNamespace(r.namespace)), options);
  }

  /** The pool is the database's; closing it is openStorage's. */
  async close(): Promise<void> {}
}
