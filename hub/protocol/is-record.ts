/**
 * The one "is this a JSON object?" check for the hub and every client (the
 * engine has its own, engine/is-record.ts: it stands alone and imports
 * nothing of the hub). Arrays and null are not records.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
