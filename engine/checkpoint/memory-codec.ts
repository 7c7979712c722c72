/**
 * The compact text MemorySaver keeps for each checkpoint and each group of
 * pending writes. Internal to engine/checkpoint.
 *
 * Plain JSON of a checkpoint spends most of its characters on names that
 * every checkpoint of a graph repeats (channel and node names, metadata
 * keys) and on `id` and `ts`, which the saver can rebuild. Here the maps of a
 * checkpoint are written as `[name, value, name, value, …]` with each name
 * replaced by its number in a KeyTable (one per saver); `id` is left out (the
 * saver keys entries by it) and `ts` is written as milliseconds after the
 * time inside a v7 id, usually 0 or 1. Values themselves — channel values,
 * metadata values, write values — are the text JSON.stringify gives, so what
 * comes back is exactly what a JSON round trip would give.
 */
import { checkpointIdTime } from "./ids.ts";
import type { Checkpoint, CheckpointMetadata, PendingWrite } from "./types.ts";
import { encodeWriteValue } from "./shared.ts";

/** Names interned per saver; later ones are written out in full, so the table stays bounded. */
const MAX_NAMES = 4096;
/** Names this long rarely repeat (namespaces, ids) and are written out in full. */
const MAX_NAME_LENGTH = 128;

/** The names that repeat across checkpoints, each stored once and referred to by number. */
export class KeyTable {
  readonly #codes = new Map<string, number>();
  readonly #names: string[] = [];

  /** JSON text for `name`: its number, or the name itself as a JSON string. */
  encode(name: string): string {
    let code = this.#codes.get(name);
    if (code === undefined) {
      if (this.#names.length >= MAX_NAMES || name.length > MAX_NAME_LENGTH) return JSON.stringify(name);
      code = this.#names.length;
      this.#names.push(name);
      this.#codes.set(name, code);
    }
    return String(code);
  }

  decode(code: unknown): string {
    if (typeof code === "string") return code;
    const name = typeof code === "number" ? this.#names[code] : undefined;
    if (name === undefined) throw new Error(`MemorySaver: no name with code ${String(code)}`);
    return name;
  }
}

let flattenSink = 0;

/**
 * Text built by concatenation is a rope of string parts in V8; reading one
 * character flattens it, and the GC then keeps a single compact string. The
 * read goes to a sink so it is not optimized away. Returns the text unchanged.
 */
function flat(text: string): string {
  flattenSink ^= text.charCodeAt(text.length - 1);
  return text;
}

/** JSON.stringify, typed honestly: undefined, functions and symbols have no JSON text. */
const json = JSON.stringify as (value: unknown) => string | undefined;

/** Objects written name by name; anything else (arrays, class instances, toJSON) goes through JSON whole. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || "toJSON" in value) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A map as JSON text: a plain object as `[name, value, …]` (an even length),
 * anything else as `[its JSON]` (length 1), and undefined where JSON has no
 * text for it. Entries JSON would drop (undefined values) are dropped too.
 */
function encodeMap(
  keys: KeyTable,
  value: unknown,
  encodeValue: (value: unknown) => string | undefined = json,
): string | undefined {
  if (!isPlainObject(value)) {
    const text = json(value);
    return text === undefined ? undefined : `[${text}]`;
  }
  let pairs = "";
  for (const name of Object.keys(value)) {
    const text = encodeValue(value[name]);
    if (text === undefined) continue;
    pairs += `${pairs === "" ? "" : ","}${keys.encode(name)},${text}`;
  }
  return `[${pairs}]`;
}

function decodeMap(keys: KeyTable, slot: unknown, decodeValue?: (slot: unknown) => unknown): unknown {
  if (!Array.isArray(slot)) throw new Error("MemorySaver: malformed map");
  if (slot.length % 2 === 1) return slot[0];
  const record: Record<string, unknown> = {};
  for (let i = 0; i < slot.length; i += 2) {
    const value: unknown = decodeValue ? decodeValue(slot[i + 1]) : slot[i + 1];
    // As JSON.parse does: "__proto__" is an own key, not the prototype.
    Object.defineProperty(record, keys.decode(slot[i]), { value, enumerable: true, writable: true, configurable: true });
  }
  return record;
}

/**
 * `ts` as the milliseconds after the id's own time when that rebuilds it
 * exactly (a number), else `[its JSON]`, or null when absent.
 */
function encodeTs(id: string, ts: unknown): string {
  const idTime = checkpointIdTime(id);
  if (typeof ts === "string" && idTime !== undefined) {
    const delta = Date.parse(ts) - idTime;
    if (Number.isSafeInteger(delta) && new Date(idTime + delta).toISOString() === ts) return String(delta);
  }
  const text = json(ts);
  return text === undefined ? "null" : `[${text}]`;
}

function decodeTs(id: string, slot: unknown): unknown {
  if (Array.isArray(slot)) return slot[0];
  const idTime = checkpointIdTime(id);
  if (typeof slot !== "number" || idTime === undefined) throw new Error("MemorySaver: malformed ts");
  return new Date(idTime + slot).toISOString();
}

/**
 * A checkpoint (without its id) and its metadata as one JSON array:
 * `[ts, metadata, channelValues, channelVersions, versionsSeen, rest]`, where
 * rest holds any other field of the checkpoint (`v`) and a null slot stands
 * for a field JSON would leave out. Throws, like JSON.stringify, on a value
 * that is not JSON.
 */
export function encodeCheckpoint(keys: KeyTable, checkpoint: Checkpoint, metadata: CheckpointMetadata): string {
  const { id, ts, channelValues, channelVersions, versionsSeen, ...rest } = checkpoint;
  const slots = [
    encodeTs(id, ts),
    encodeMap(keys, metadata) ?? "null",
    encodeMap(keys, channelValues) ?? "null",
    encodeMap(keys, channelVersions) ?? "null",
    // A map of maps: the names of both levels come from the table.
    encodeMap(keys, versionsSeen, (seen) => encodeMap(keys, seen)) ?? "null",
    JSON.stringify(rest),
  ];
  return flat(`[${slots.join(",")}]`);
}

export function decodeCheckpoint(
  keys: KeyTable,
  id: string,
  text: string,
): { checkpoint: Checkpoint; metadata: CheckpointMetadata } {
  const [ts, metadata, channelValues, channelVersions, versionsSeen, rest] = JSON.parse(text) as unknown[];
  const checkpoint = rest as Record<string, unknown>;
  if (channelValues !== null) checkpoint["channelValues"] = decodeMap(keys, channelValues);
  if (channelVersions !== null) checkpoint["channelVersions"] = decodeMap(keys, channelVersions);
  if (versionsSeen !== null) checkpoint["versionsSeen"] = decodeMap(keys, versionsSeen, (seen) => decodeMap(keys, seen));
  checkpoint["id"] = id;
  if (ts !== null) checkpoint["ts"] = decodeTs(id, ts);
  return {
    checkpoint: checkpoint as unknown as Checkpoint,
    metadata: (metadata === null ? undefined : decodeMap(keys, metadata)) as CheckpointMetadata,
  };
}

/** One pending write before encoding: the value is its JSON text, undefined for `undefined`. */
export type WriteRow = [channel: string, idx: number, value: string | undefined];

/**
 * Rows one putWrites call saved for one task: `[taskId, [channel, idx, value], …]`,
 * the value left out for `undefined` (which JSON cannot spell).
 */
export function encodeWrites(keys: KeyTable, taskId: string, rows: readonly WriteRow[]): string {
  const encoded = rows.map(([channel, idx, value]) =>
    value === undefined ? `[${keys.encode(channel)},${idx}]` : `[${keys.encode(channel)},${idx},${value}]`,
  );
  return flat(`[${JSON.stringify(taskId)},${encoded.join(",")}]`);
}

/** True when `text` (from encodeWrites) holds rows of this task, without parsing it. */
export function isWritesOf(text: string, taskId: string): boolean {
  const quoted = JSON.stringify(taskId);
  return text.startsWith(quoted, 1) && text.charCodeAt(1 + quoted.length) === 44; // ","
}

/** The rows of an encodeWrites text, values as JSON text again (to re-encode after a change). */
export function decodeWriteRows(keys: KeyTable, text: string): WriteRow[] {
  const [, ...rows] = JSON.parse(text) as unknown[];
  return (rows as unknown[][]).map((row) => [
    keys.decode(row[0]),
    row[1] as number,
    row.length > 2 ? encodeWriteValue(row[2]) : undefined,
  ]);
}

/** Appends the writes of an encodeWrites text to `out`, as pendingWrites. */
export function decodeWrites(keys: KeyTable, text: string, out: PendingWrite[]): void {
  const [taskId, ...rows] = JSON.parse(text) as unknown[];
  for (const row of rows as unknown[][]) out.push([taskId as string, keys.decode(row[0]), row[2]]);
}
