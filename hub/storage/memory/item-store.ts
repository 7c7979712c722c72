/** The LangGraph store's items in memory (a hub without a data dir). */
import { cloneJson, monotonicClock } from "../../runs/records.ts";
import {
  STORE_LIMITS,
  checkKey,
  checkNamespace,
  checkPageOf,
  checkValue,
  encodeNamespace,
  hasPrefix,
  listNamespacesOf,
  matchesFilter,
  newestFirst,
  type ItemStore,
  type NamespaceOptions,
  type SearchOptions,
  type StoreItem,
} from "../../store/index.ts";

const idOf = (namespace: readonly string[], key: string): string => `${encodeNamespace(namespace)}\u0000${key}`;

export class MemoryItemStore implements ItemStore {
  readonly #byTenant = new Map<string, Map<string, StoreItem>>();
  readonly #now = monotonicClock();

  #items(tenant: string): Map<string, StoreItem> {
    let items = this.#byTenant.get(tenant);
    if (!items) this.#byTenant.set(tenant, (items = new Map()));
    return items;
  }

  async put(tenant: string, namespace: readonly string[], key: string, value: Record<string, unknown>): Promise<StoreItem> {
    const ns = checkNamespace(namespace);
    checkKey(key);
    const stored = cloneJson(checkValue(value));
    const items = this.#items(tenant);
    const now = this.#now();
    const existing = items.get(idOf(ns, key));
    const item: StoreItem = { namespace: ns, key, value: stored, createdAt: existing?.createdAt ?? now, updatedAt: now };
    items.set(idOf(ns, key), item);
    return cloneJson(item);
  }

  async get(tenant: string, namespace: readonly string[], key: string): Promise<StoreItem | undefined> {
    const item = this.#byTenant.get(tenant)?.get(idOf(checkNamespace(namespace), checkKey(key)));
    return item && cloneJson(item);
  }

  async delete(tenant: string, namespace: readonly string[], key: string): Promise<boolean> {
    return this.#byTenant.get(tenant)?.delete(idOf(checkNamespace(namespace), checkKey(key))) ?? false;
  }

  async search(tenant: string, prefix: readonly string[], options: SearchOptions = {}): Promise<StoreItem[]> {
    const p = checkNamespace(prefix, "namespace_prefix", true);
    const { limit, offset } = checkPageOf(options.limit, options.offset);
    const all = [...(this.#byTenant.get(tenant)?.values() ?? [])].filter((i) => hasPrefix(i.namespace, p)).sort(newestFirst).slice(0, STORE_LIMITS.maxScan);
    return all.filter((i) => matchesFilter(i.value, options.filter)).slice(offset, offset + limit).map((i) => cloneJson(i));
  }

  async listNamespaces(tenant: string, options: NamespaceOptions = {}): Promise<string[][]> {
    if (options.prefix) checkNamespace(options.prefix, "prefix", true);
    if (options.suffix) checkNamespace(options.suffix, "suffix", true);
    const all = [...(this.#byTenant.get(tenant)?.values() ?? [])].slice(0, STORE_LIMITS.maxScan).map((i) => i.namespace);
    return listNamespacesOf(all, options);
  }

  async close(): Promise<void> {}
}
