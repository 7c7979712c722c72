/**
 * Checkpoint ids: UUID-v7-shaped strings (36 chars, lowercase hex with dashes)
 * that sort lexicographically in creation order. Checkpointers find "the
 * latest" and page through history by comparing ids, so within one process
 * every id must be strictly greater than the one before it, even when many
 * are made in the same millisecond.
 *
 * Layout (RFC 9562 §6.2, method 1: a counter in the random bits):
 *   48 bits unix ms | 4 bits version 7 | 26 bits counter (12 in rand_a, 14
 *   after the 2 variant bits) | 48 random bits.
 */
import { Buffer } from "node:buffer";
import { randomFillSync } from "node:crypto";

const COUNTER_BITS = 26;
const COUNTER_MAX = 2 ** COUNTER_BITS - 1;
/** A fresh millisecond seeds the counter below half its range, so at least 2^25 ids fit in it. */
const SEED_MASK = 2 ** (COUNTER_BITS - 1) - 1;

// Random bytes are drawn in batches: one syscall per ~40 ids instead of one each.
const pool = new Uint8Array(256);
let poolOffset = pool.length;

function randomBytes(n: number): Uint8Array {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return bytes;
}

function randomCounterSeed(): number {
  const b = randomBytes(4);
  return (((b[0] ?? 0) << 24) | ((b[1] ?? 0) << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0)) & SEED_MASK;
}

const HEX = [..."0123456789abcdef"].map((c) => c.charCodeAt(0));
// Ids are written as bytes and decoded once: string concatenation would build
// a rope of cons strings (~360 bytes per id in V8) that every holder keeps.
const out = Buffer.from("00000000-0000-7000-8000-000000000000", "latin1");

/** Writes `width` lowercase hex digits of `value` (< 2^32) ending before `end`. */
function writeHex(value: number, width: number, end: number): void {
  for (let i = end - 1; i >= end - width; i--) {
    out[i] = HEX[value & 0xf] ?? 0;
    value >>>= 4;
  }
}

let lastMs = -1;
let counter = 0;

/** A new checkpoint id, strictly greater (as a string) than every id this process made before. */
export function newCheckpointId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = randomCounterSeed();
  } else if (counter < COUNTER_MAX) {
    // Same millisecond, or the clock stepped back: keep lastMs so order holds.
    counter += 1;
  } else {
    // Counter exhausted: borrow the next millisecond rather than repeat or wrap.
    lastMs += 1;
    counter = randomCounterSeed();
  }

  writeHex(Math.floor(lastMs / 0x10000), 8, 8);
  writeHex(lastMs % 0x10000, 4, 13);
  writeHex(counter >>> 14, 3, 18); // after the version digit at 14
  writeHex(0x8000 | (counter & 0x3fff), 4, 23);
  const tail = randomBytes(6);
  for (let i = 0; i < 6; i++) writeHex(tail[i] ?? 0, 2, 26 + 2 * i);
  return out.toString("latin1");
}

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The unix-ms timestamp carried by an id of newCheckpointId's shape, or
 * undefined for any other string (savers accept ids of any shape).
 */
export function checkpointIdTime(id: string): number | undefined {
  if (!ID_SHAPE.test(id)) return undefined;
  return Number.parseInt(id.slice(0, 8), 16) * 0x10000 + Number.parseInt(id.slice(9, 13), 16);
}

/** Orders checkpoint ids by creation (plain code-unit order): negative, zero or positive. */
export function compareCheckpointIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
