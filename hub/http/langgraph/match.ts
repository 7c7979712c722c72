/**
 * The LangGraph API's filters (`metadata`, `values`, store `filter`): every
 * key of the filter must equal the record's value at that key, compared as
 * JSON (objects by their keys in any order).
 */

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function matchesJson(record: Record<string, unknown> | null | undefined, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, value]) => record !== null && record !== undefined && Object.hasOwn(record, key) && jsonEqual(record[key], value));
}
