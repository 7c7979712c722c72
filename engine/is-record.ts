/**
 * The engine's one "is this a JSON object?" check. It mirrors
 * hub/protocol/is-record.ts: the engine stands alone (it imports nothing of
 * the hub) and the wire imports no engine code, so each side keeps one.
 * Arrays and null are not records.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
