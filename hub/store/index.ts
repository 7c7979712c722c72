/**
 * hub/store: the LangGraph API's long-term memory store (`client.store.*`):
 * JSON items under a namespace (a path of labels) and a key, per tenant. The
 * port the storage adapters implement (memory, SQLite, Postgres; one
 * conformance suite), and what every backend shares: validation, limits,
 * the namespace encoding, filters and namespace listing.
 */

export interface StoreItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface SearchOptions {
  /** Every key must equal (as JSON) the item value's field. */
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
}

export interface NamespaceOptions {
  prefix?: readonly string[];
  suffix?: readonly string[];
  /** Namespaces deeper than this are cut to their first `maxDepth` labels (and deduplicated). */
  maxDepth?: number;
  limit?: number;
  offset?: number;
}

export interface ItemStore {
  /** Creates or replaces the item; `createdAt` stays on a replace. */
  put(tenant: string, namespace: readonly string[], key: string, value: Record<string, unknown>): Promise<StoreItem>;
  get(tenant: string, namespace: readonly string[], key: string): Promise<StoreItem | undefined>;
  /** False when there was no such item. */
  delete(tenant: string, namespace: readonly string[], key: string): Promise<boolean>;
  /** Items whose namespace starts with `prefix`, most recently updated first. */
  search(tenant: string, prefix: readonly string[], options?: SearchOptions): Promise<StoreItem[]>;
  /** Distinct namespaces of the tenant's items, sorted. */
  listNamespaces(tenant: string, options?: NamespaceOptions): Promise<string[][]>;
  close(): Promise<void>;
}

/** Limits of the store, in count and in bytes (the HTTP body limit also bounds a value). */
export const STORE_LIMITS = {
  /** Labels in a namespace. */
  maxNamespaceDepth: 16,
  /** Bytes of one label, and of one key (UTF-8). */
  maxLabelBytes: 256,
  maxKeyBytes: 1024,
  /** Items or namespaces in one page. */
  maxPage: 1000,
  /** A filtered search or a namespace listing reads at most this many items. */
  maxScan: 10_000,
} as const;

export class StoreArgumentError extends Error {
  override readonly name = "StoreArgumentError";
}

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/** Checks a namespace: labels are non-empty strings without "." (LangGraph's rule; it joins them with "."). */
export function checkNamespace(namespace: readonly unknown[], what = "namespace", allowEmpty = false): string[] {
  if (!Array.isArray(namespace)) throw new StoreArgumentError(`${what} must be an array of labels`);
  if (!allowEmpty && namespace.length === 0) throw new StoreArgumentError(`${what} must have at least one label`);
  if (namespace.length > STORE_LIMITS.maxNamespaceDepth) throw new StoreArgumentError(`${what} has ${namespace.length} labels; the limit is ${STORE_LIMITS.maxNamespaceDepth}`);
  for (const label of namespace) {
    if (typeof label !== "string" || label === "") throw new StoreArgumentError(`${what} labels must be non-empty strings`);
    if (label.includes(".")) throw new StoreArgumentError(`${what} label "${label}" contains "."`);
    if (bytes(label) > STORE_LIMITS.maxLabelBytes) throw new StoreArgumentError(`a ${what} label is ${bytes(label)} bytes; the limit is ${STORE_LIMITS.maxLabelBytes}`);
  }
  return [...(namespace as string[])];
}

export function checkKey(key: unknown): string {
  if (typeof key !== "string" || key === "") throw new StoreArgumentError("key must be a non-empty string");
  if (bytes(key) > STORE_LIMITS.maxKeyBytes) throw new StoreArgumentError(`key is ${bytes(key)} bytes; the limit is ${STORE_LIMITS.maxKeyBytes}`);
  return key;
}

export function checkValue(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new StoreArgumentError("value must be a JSON object");
  return value as Record<string, unknown>;
}

export function checkPageOf(limit: number | undefined, offset: number | undefined): { limit: number; offset: number } {
  const l = limit ?? 10;
  const o = offset ?? 0;
  if (!Number.isSafeInteger(l) || l < 0 || l > STORE_LIMITS.maxPage) throw new StoreArgumentError(`limit must be an integer from 0 to ${STORE_LIMITS.maxPage}`);
  if (!Number.isSafeInteger(o) || o < 0) throw new StoreArgumentError("offset must be a non-negative integer");
  return { limit: l, offset: o };
}

/** The stored form of a namespace: its labels joined by "." (no label contains one). */
export const encodeNamespace = (namespace: readonly string[]): string => namespace.join(".");
export const decodeNamespace = (text: string): string[] => text.split(".");

/** Whether `namespace` starts with `prefix`. */
export function hasPrefix(namespace: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((label, i) => namespace[i] === label);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => Object.hasOwn(value, k) && jsonEqual(value[k], v));
}

/** Most recently updated first; ties by namespace, then key. */
export function newestFirst(a: StoreItem, b: StoreItem): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  const an = encodeNamespace(a.namespace);
  const bn = encodeNamespace(b.namespace);
  if (an !== bn) return an < bn ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The namespace listing from the distinct namespaces: prefix, suffix, maxDepth, then the page. */
export function listNamespacesOf(all: Iterable<readonly string[]>, options: NamespaceOptions): string[][] {
  const prefix = options.prefix ?? [];
  const suffix = options.suffix ?? [];
  const { limit, offset } = checkPageOf(options.limit ?? 100, options.offset);
  if (options.maxDepth !== undefined && (!Number.isSafeInteger(options.maxDepth) || options.maxDepth < 1)) throw new StoreArgumentError("max_depth must be a positive integer");
  const seen = new Map<string, string[]>();
  for (const ns of all) {
    if (!hasPrefix(ns, prefix)) continue;
    if (suffix.length > 0 && (ns.length < suffix.length || !suffix.every((label, i) => ns[ns.length - suffix.length + i] === label))) continue;
    const cut = options.maxDepth === undefined ? [...ns] : ns.slice(0, options.maxDepth);
    seen.set(encodeNamespace(cut), cut);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ns]) => ns).slice(offset, offset + limit);
}
