/**
 * Pieces both checkpointer backends need to behave identically: the metadata
 * filter of `list`, the encoding of write values, and the error for writes
 * against a checkpoint that does not exist (the engine's own error class).
 * Internal to engine/checkpoint.
 */
import type { CheckpointMetadata } from "./types.ts";

/** putWrites named a checkpoint the saver does not hold (never stored, or its thread was deleted). */
export { CheckpointNotFoundError } from "../errors.ts";

/**
 * Write values are JSON text; `undefined` (which JSON cannot spell) is kept as
 * "no text" so it round-trips instead of coming back as null.
 */
export function encodeWriteValue(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

export function decodeWriteValue(text: string | null | undefined): unknown {
  return text == null ? undefined : (JSON.parse(text) as unknown);
}

/** True when every filter key equals (JSON deep-equal) the metadata's value for that key. */
export function metadataMatches(
  metadata: CheckpointMetadata,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (filter === undefined) return true;
  for (const key of Object.keys(filter)) {
    if (!jsonEqual(metadata[key], filter[key])) return false;
  }
  return true;
}

/**
 * Deep equality as JSON sees it: object key order does not matter, and a key
 * whose value is undefined is the same as a missing key (JSON drops both).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keysA = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const keysB = Object.keys(rb).filter((k) => rb[k] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}
