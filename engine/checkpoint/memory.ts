/**
 * MemorySaver: the in-memory checkpointer, for tests, demos and single-process
 * runs that need no durability.
 *
 * Checkpoints, metadata and write values are kept as JSON text: a caller can
 * never alias what is stored, and one string per value is the smallest thing
 * V8 will hold for it (a parsed tiny state costs several objects). Per thread:
 * namespace -> entries sorted by checkpoint id, so the latest checkpoint is
 * the last element (O(1)) and any other is a binary search.
 *
 * Heap per interrupted thread is a benchmark target, hence a few habits below:
 * small arrays are grown to exact size, and the root namespace lives in a
 * field rather than in a Map (~180 bytes each) that most threads never need.
 */
import { CheckpointNotFoundError, decodeWriteValue, encodeWriteValue, metadataMatches } from "./shared.ts";
import type {
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  Checkpointer,
  CheckpointTuple,
  ListOptions,
  PendingWrite,
} from "./types.ts";

let flattenSink = 0;

/**
 * V8's JSON.stringify returns a rope of string parts; reading one character
 * flattens it, and the GC then keeps a single compact string (about 30% less
 * heap for a tiny checkpoint). The read goes to a sink so it is not optimized
 * away. Returns the text unchanged.
 */
function flat(text: string): string {
  flattenSink ^= text.charCodeAt(text.length - 1);
  return text;
}

/** One write of a task; a class, so every row shares one hidden shape. */
class StoredWrite {
  readonly taskId: string;
  readonly channel: string;
  readonly idx: number;
  value: string | undefined;

  constructor(taskId: string, channel: string, idx: number, value: string | undefined) {
    this.taskId = taskId;
    this.channel = channel;
    this.idx = idx;
    this.value = value;
  }
}

class StoredCheckpoint {
  readonly id: string;
  parentId: string | undefined;
  checkpoint: string;
  metadata: string;
  /** Created on the first putWrites: most checkpoints never get writes. */
  writes: StoredWrite[] | undefined = undefined;

  constructor(id: string, parentId: string | undefined, checkpoint: string, metadata: string) {
    this.id = id;
    this.parentId = parentId;
    this.checkpoint = checkpoint;
    this.metadata = metadata;
  }
}

/** Arrays this short are copied to exact size on append; V8's push would reserve 17 slots. */
const EXACT_UP_TO = 16;

function append<T>(items: T[] | undefined, added: T[]): T[] {
  if (items === undefined) return added.length <= EXACT_UP_TO ? added.slice() : added;
  if (items.length + added.length <= EXACT_UP_TO) return items.concat(added);
  for (const item of added) items.push(item);
  return items;
}

/** One thread's checkpoints by namespace; never holds an empty entries array. */
class ThreadHistory {
  root: StoredCheckpoint[] | undefined = undefined;
  subgraphs: Map<string, StoredCheckpoint[]> | undefined = undefined;

  get(checkpointNs: string): StoredCheckpoint[] | undefined {
    return checkpointNs === "" ? this.root : this.subgraphs?.get(checkpointNs);
  }

  set(checkpointNs: string, entries: StoredCheckpoint[]): void {
    if (checkpointNs === "") this.root = entries;
    else (this.subgraphs ??= new Map()).set(checkpointNs, entries);
  }

  *namespaces(): Iterable<[string, StoredCheckpoint[]]> {
    if (this.root !== undefined) yield ["", this.root];
    if (this.subgraphs !== undefined) yield* this.subgraphs;
  }
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

function toTuple(
  threadId: string,
  checkpointNs: string,
  entry: StoredCheckpoint,
  metadata: CheckpointMetadata = JSON.parse(entry.metadata) as CheckpointMetadata,
): CheckpointTuple {
  const pendingWrites: PendingWrite[] = [];
  for (const w of entry.writes ?? []) {
    pendingWrites.push([w.taskId, w.channel, decodeWriteValue(w.value)]);
  }
  const tuple: CheckpointTuple = {
    config: { threadId, checkpointNs, checkpointId: entry.id },
    checkpoint: JSON.parse(entry.checkpoint) as Checkpoint,
    metadata,
    pendingWrites,
  };
  if (entry.parentId !== undefined) {
    tuple.parentConfig = { threadId, checkpointNs, checkpointId: entry.parentId };
  }
  return tuple;
}

export class MemorySaver implements Checkpointer {
  readonly #threads = new Map<string, ThreadHistory>();

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const entry = this.#find(config.threadId, config.checkpointNs, config.checkpointId);
    return entry && toTuple(config.threadId, config.checkpointNs, entry);
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
      const metadata = JSON.parse(entry.metadata) as CheckpointMetadata;
      if (!metadataMatches(metadata, options.filter)) continue;
      remaining -= 1;
      yield toTuple(config.threadId, ns, entry, metadata);
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
    // Serialize before touching the store so a non-JSON value changes nothing.
    const checkpointText = flat(JSON.stringify(checkpoint));
    const metadataText = flat(JSON.stringify(metadata));

    let thread = this.#threads.get(threadId);
    if (thread === undefined) {
      thread = new ThreadHistory();
      this.#threads.set(threadId, thread);
    }
    const entries = thread.get(checkpointNs);
    const at = entries === undefined ? 0 : lowerBound(entries, id);
    const existing = entries?.[at];
    if (existing?.id === id) {
      // Same id again replaces the checkpoint; its pending writes stay, as in SQL.
      existing.parentId = config.checkpointId;
      existing.checkpoint = checkpointText;
      existing.metadata = metadataText;
    } else {
      const entry = new StoredCheckpoint(id, config.checkpointId, checkpointText, metadataText);
      if (entries === undefined || at === entries.length) {
        // Ids normally arrive in increasing order, so this is the common case.
        thread.set(checkpointNs, append(entries, [entry]));
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
    const encoded = writes.map(([, value]) => {
      const text = encodeWriteValue(value);
      return text === undefined ? undefined : flat(text);
    });
    const stored = entry.writes;
    const added: StoredWrite[] = [];
    writes.forEach(([channel], idx) => {
      const value = encoded[idx];
      // Linear scan: a checkpoint holds few writes, and a Map per checkpoint
      // would cost more memory than it saves time.
      const same = stored?.find((w) => w.taskId === taskId && w.channel === channel && w.idx === idx);
      if (same) same.value = value;
      else added.push(new StoredWrite(taskId, channel, idx, value));
    });
    if (added.length > 0) entry.writes = append(stored, added);
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#threads.delete(threadId);
  }

  /** The checkpoint with this id, or the latest one when id is undefined. */
  #find(threadId: string, checkpointNs: string, id: string | undefined): StoredCheckpoint | undefined {
    const entries = this.#threads.get(threadId)?.get(checkpointNs);
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
    const entries = this.#threads.get(threadId)?.get(checkpointNs);
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
    const thread = this.#threads.get(threadId);
    if (thread === undefined) return undefined;
    let best: [string, StoredCheckpoint] | undefined;
    for (const [ns, entries] of thread.namespaces()) {
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
