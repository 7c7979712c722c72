/** JSON-serializability check with the path of the first offending value. */
import { InterruptValueNotSerializableError } from "../errors.ts";

function describe(value: unknown): string {
  if (typeof value === "function") return `a function${value.name ? ` (${value.name})` : ""}`;
  if (typeof value === "bigint") return "a bigint";
  if (typeof value === "symbol") return "a symbol";
  if (typeof value === "number") return `the number ${String(value)}`;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return `an instance of ${proto?.constructor?.name ?? "an unknown class"}`;
}

export function assertJsonSerializable(value: unknown, path = "$", seen = new Set<object>()): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InterruptValueNotSerializableError(path, describe(value));
    return;
  }
  if (value === undefined) return; // dropped by JSON, like an absent key
  if (typeof value !== "object") throw new InterruptValueNotSerializableError(path, describe(value));
  if (seen.has(value)) throw new InterruptValueNotSerializableError(path, "a circular reference");
  seen.add(value);
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJsonSerializable(item, `${path}[${i}]`, seen));
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw new InterruptValueNotSerializableError(path, describe(value));
    for (const [key, item] of Object.entries(value)) {
      assertJsonSerializable(item, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, seen);
    }
  }
  seen.delete(value);
}
