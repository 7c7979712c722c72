/**
 * MemorySaver: the in-memory checkpointer, for tests, demos and single-process
 * runs that need no durability.
 *
 * Each checkpoint is kept, with its metadata, as one string of compact JSON,
 * and each group of pending writes as another (memory-codec.ts): a caller can
 * never alias what is stored, and one string is the smallest thing V8 will
 * hold for a value (a parsed tiny state costs several objects). Per thread
 * and namespace, entries are sorted by checkpoint id, so the latest
 * checkpoint is the last element (O(1)) and any other is a binary search.
 *
 * Heap per interrupted thread is a benchmark target (≤ 1 KB), hence a few
 * habits below: names that every checkpoint repeats are stored once per saver
 * (KeyTable), small arrays are grown to exact size, a lone group of writes is
 * not wrapped in an array, and a thread's root-namespace entries are the
 * value of a saver-wide Map, with no per-thread object around them; only a
 * thread with subgraph namespaces gets a Map of its own (~180 bytes).
 */
import {
  KeyTable,
  decodeCheckpoint,
  decodeWriteRows,
  decodeWrites,
  encodeCheckpoint,
  encodeWrites,
  isWritesOf,
  type WriteRow,
} from "./memory-codec.ts";
import { CheckpointNotFoundError, encodeWriteValue, metadataMatches } from "./shared.ts";
import type {
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  Checkpointer,
  CheckpointTuple,
  ListOptions,
  PendingWrite,
} from "./types.ts";

class StoredCheckpoint {
  readonly id: string;
  parentId: string | undefined;
  /** The checkpoint without its id, and its metadata (encodeCheckpoint). */
  data: string;
  /**
   * One encodeWrites text per putWrites that added rows, in insertion order;
   * most checkpoints have none or one, held without an array.
   */
  writes: string | string[] | undefined = undefined;

  constructor(id: string, parentId: string | undefined, data: string) {
    this.id = id;
    this.parentId = parentId;
    this.data = data;
  }
}

function writeGroups(entry: StoredCheckpoint): string[] {
  const { writes } = entry;
  return writes === undefined ? [] : typeof writes === "string" ? [writes] : writes;
}

/** Arrays this short are copied to exact size on append; V8's push would reserve 17 slots. */
const EXACT_UP_TO = 16;

function append<T>(items: T[] | undefined, added: T[]): T[] {
  if (items === undefined) return added.length <= EXACT_UP_TO ? added.slice() : added;
  if (items.length + added.length <= EXACT_UP_TO) return items.concat(added);
  for (const item of added) items.push(item);
  return items;
}

/** First index whose id is >= `id` (entries are sorted by id). */
function lowerBound(entries: readonly StoredCheckpoint[], id: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid] as StoredCheckpoint).id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose id is > `id`. */
function upperBound(entries: readonly StoredCheckpoint[], id: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid] as StoredCheckpoint).id <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Order of `list` across namespaces: by id, then namespace, both descending. */
function isBefore(id: string, ns: string, cursorId: string, cursorNs: string): boolean {
  return id < cursorId || (id === cursorId && ns < cursorNs);
}

export class MemorySaver implements Checkpointer {
  readonly #keys = new KeyTable();
  /** Entries of the root namespace by thread id: the only namespace most threads have. */
  readonly #roots = new Map<string, StoredCheckpoint[]>();
  /** Entries of subgraph namespaces by thread id, then namespace. */
  readonly #subgraphs = new Map<string, Map<string, StoredCheckpoint[]>>();

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const entry = this.#find(config.threadId, config.checkpointNs, config.checkpointId);
    return entry && this.#toTuple(config.threadId, config.checkpointNs, entry);
  }

  async *list(
    config: { threadId: string; checkpointNs?: string },
    options: ListOptions = {},
  ): AsyncIterable<CheckpointTuple> {
    let remaining = options.limit ?? Infinity;
    // A keyset cursor, not an index: the store may change while the caller
    // holds the iterator, and each step looks up "the next older" afresh.
    let cursorId = options.before;
    let cursorNs = "";
    while (remaining > 0) {
      const next =
        config.checkpointNs === undefined
          ? this.#nextInThread(config.threadId, cursorId, cursorNs)
          : this.#nextInNamespace(config.threadId, config.checkpointNs, cursorId);
      if (next === undefined) return;
      const [ns, entry] = next;
      cursorId = entry.id;
      cursorNs = ns;
      const decoded = decodeCheckpoint(this.#keys, entry.id, entry.data);
      if (!metadataMatches(decoded.metadata, options.filter)) continue;
      remaining -= 1;
      yield this.#toTuple(config.threadId, ns, entry, decoded);
    }
  }

  async put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<Required<CheckpointConfig>> {
    const { threadId, checkpointNs } = config;
    const id = checkpoint.id;
    if (typeof id !== "string" || id === "") {
      throw new TypeError("checkpoint.id must be a non-empty string");
    }
    // Encode before touching the store so a non-JSON value changes nothing.
    const data = encodeCheckpoint(this.#keys, checkpoint, metadata);

    const entries = this.#entries(threadId, checkpointNs);
    const at = entries === undefined ? 0 : lowerBound(entries, id);
    const existing = entries?.[at];
    if (existing?.id === id) {
      // Same id again replaces the checkpoint; its pending writes stay, as in SQL.
      existing.parentId = config.checkpointId;
      existing.data = data;
    } else {
      const entry = new StoredCheckpoint(id, config.checkpointId, data);
      if (entries === undefined || at === entries.length) {
        // Ids normally arrive in increasing order, so this is the common case.
        this.#setEntries(threadId, checkpointNs, append(entries, [entry]));
      } else {
        entries.splice(at, 0, entry);
      }
    }
    return { threadId, checkpointNs, checkpointId: id };
  }

  async putWrites(
    config: Required<CheckpointConfig>,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void> {
    const entry = this.#find(config.threadId, config.checkpointNs, config.checkpointId);
    if (entry === undefined) {
      throw new CheckpointNotFoundError(config.threadId, config.checkpointId, config.checkpointNs);
    }
    // Encode everything first: a value that is not JSON fails the whole call.
    const values = writes.map(([, value]) => encodeWriteValue(value));
    const groups = writeGroups(entry);
    // Rows this task saved before; a write with the same (channel, idx) replaces one in place.
    // Linear scans: a checkpoint holds few writes, and an index per checkpoint
    // would cost more memory than it saves time.
    const own: Array<{ at: number; rows: WriteRow[]; changed: boolean }> = [];
    groups.forEach((text, at) => {
      if (isWritesOf(text, taskId)) own.push({ at, rows: decodeWriteRows(this.#keys, text), changed: false });
    });
    const added: WriteRow[] = [];
    writes.forEach(([channel], idx) => {
      const value = values[idx];
      for (const group of own) {
        const same = group.rows.find((row) => row[0] === channel && row[1] === idx);
        if (same === undefined) continue;
        same[2] = value;
        group.changed = true;
        return;
      }
      added.push([channel, idx, value]);
    });
    for (const { at, rows, changed } of own) {
      if (changed) groups[at] = encodeWrites(this.#keys, taskId, rows);
    }
    const next = added.length > 0 ? append(groups, [encodeWrites(this.#keys, taskId, added)]) : groups;
    if (next.length > 0) entry.writes = next.length === 1 ? next[0] : next;
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#roots.delete(threadId);
    this.#subgraphs.delete(threadId);
  }

  #toTuple(
    threadId: string,
    checkpointNs: string,
    entry: StoredCheckpoint,
    { checkpoint, metadata } = decodeCheckpoint(this.#keys, entry.id, entry.data),
  ): CheckpointTuple {
    const pendingWrites: PendingWrite[] = [];
    for (const text of writeGroups(entry)) decodeWrites(this.#keys, text, pendingWrites);
    const tuple: CheckpointTuple = {
      config: { threadId, checkpointNs, checkpointId: entry.id },
      checkpoint,
      metadata,
      pendingWrites,
    };
    if (entry.parentId !== undefined) {
      tuple.parentConfig = { threadId, checkpointNs, checkpointId: entry.parentId };
    }
    return tuple;
  }

  #entries(threadId: string, checkpointNs: string): StoredCheckpoint[] | undefined {
    return checkpointNs === "" ? this.#roots.get(threadId) : this.#subgraphs.get(threadId)?.get(checkpointNs);
  }

  /** Never called with an empty array: a thread with no checkpoints has no entry. */
  #setEntries(threadId: string, checkpointNs: string, entries: StoredCheckpoint[]): void {
    if (checkpointNs === "") {
      this.#roots.set(threadId, entries);
      return;
    }
    let namespaces = this.#subgraphs.get(threadId);
    if (namespaces === undefined) {
      namespaces = new Map();
      this.#subgraphs.set(threadId, namespaces);
    }
    namespaces.set(checkpointNs, entries);
  }

  *#namespaces(threadId: string): Iterable<[string, StoredCheckpoint[]]> {
    const root = this.#roots.get(threadId);
    if (root !== undefined) yield ["", root];
    const subgraphs = this.#subgraphs.get(threadId);
    if (subgraphs !== undefined) yield* subgraphs;
  }

  /** The checkpoint with this id, or the latest one when id is undefined. */
  #find(threadId: string, checkpointNs: string, id: string | undefined): StoredCheckpoint | undefined {
    const entries = this.#entries(threadId, checkpointNs);
    if (entries === undefined) return undefined;
    if (id === undefined) return entries.at(-1);
    const entry = entries[lowerBound(entries, id)];
    return entry?.id === id ? entry : undefined;
  }

  /** Newest entry of one namespace older than cursorId (or the newest, with no cursor). */
  #nextInNamespace(
    threadId: string,
    checkpointNs: string,
    cursorId: string | undefined,
  ): [string, StoredCheckpoint] | undefined {
    const entries = this.#entries(threadId, checkpointNs);
    if (entries === undefined) return undefined;
    const at = cursorId === undefined ? entries.length : lowerBound(entries, cursorId);
    const entry = entries[at - 1];
    return entry && [checkpointNs, entry];
  }

  /** Newest entry of any namespace that sorts before (cursorId, cursorNs). */
  #nextInThread(
    threadId: string,
    cursorId: string | undefined,
    cursorNs: string,
  ): [string, StoredCheckpoint] | undefined {
    let best: [string, StoredCheckpoint] | undefined;
    for (const [ns, entries] of this.#namespaces(threadId)) {
      let at = entries.length;
      if (cursorId !== undefined) {
        // In a namespace that sorts below the cursor's, the cursor's own id still qualifies.
        at = ns < cursorNs ? upperBound(entries, cursorId) : lowerBound(entries, cursorId);
      }
      const entry = entries[at - 1];
      if (entry === undefined) continue;
      if (best === undefined || isBefore(best[1].id, best[0], entry.id, ns)) best = [ns, entry];
    }
    return best;
  }
}
