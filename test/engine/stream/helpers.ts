/** Small helpers for stream tests: collect parts, deferred promises. */
import type { StreamPart } from "../../../engine/index.ts";

export async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** True when the value survives a JSON round trip unchanged (no functions, classes, cycles). */
export function isPlainJson(value: unknown): boolean {
  const roundTrip = JSON.parse(JSON.stringify(value)) as unknown;
  return JSON.stringify(roundTrip) === JSON.stringify(value) && deepPlain(value);
}

function deepPlain(value: unknown): boolean {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(deepPlain);
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as Record<string, unknown>).every((v) => v === undefined || deepPlain(v));
}
