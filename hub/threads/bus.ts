/**
 * The event bus port: every node's view of one ordered stream of events per
 * thread. The bus — not a node — numbers the events (each gets the thread's
 * next seq, the same on every node), keeps a bounded replay of them, and
 * delivers them live to every node that listens to the thread.
 *
 * A payload is the event's JSON without `seq` / `event_id`: each node adds
 * those when it encodes the frame, once per node. Each appended event also
 * says how it changes the thread's baseline (`pin`): the last root `values`
 * and root `lifecycle`, and the questions still open — kept by the bus beside
 * the bounded replay, so a node that opens a thread late still has them.
 *
 * Adapters: Redis (hub/storage/redis/), memory (hub/storage/memory/, several
 * hubs in one process). The embedded hub numbers events in its ThreadLog
 * directly and needs no bus. Conformance suite: test/hub/storage/conformance/bus.ts.
 */

/** How an event changes the baseline: set a pin field, delete some, or neither. */
export type BusPin = { set: string } | { delete: readonly string[] } | null;

export interface BusAppend {
  payload: string;
  pin: BusPin;
}

/** One event of a thread's stream as the bus holds it. */
export interface BusEntry {
  seq: number;
  payload: string;
}

export interface BusSnapshot {
  /** The baseline pins, oldest first (each is an entry of the stream, maybe trimmed from the replay). */
  pins: BusEntry[];
  /** Entries after the `after` asked for that are still held, oldest first. */
  entries: BusEntry[];
  /** Seq of the oldest entry held (null: none); below it the replay has nothing. */
  oldest: number | null;
  /** Seq of the latest entry ever appended (0: none). */
  head: number;
}

/**
 * What a thread held before its stream was lost (Redis restarted empty, or
 * its keys expired), for the first append after the loss: the counter starts
 * at `floor` (so no seq repeats or goes back: at least the highest seq the
 * node knows), and the baseline pins are put back, each under its field with
 * its old seq (at most `floor`), before the batch is applied.
 */
export interface BusRestore {
  floor: number;
  pins: ReadonlyArray<BusEntry & { field: string }>;
}

/**
 * What an append does when the thread has no counter (its stream is new or
 * was lost): start it at Date.now() * 1000 with no baseline ("fresh", the
 * default), refuse with BusStreamLostError ("ask": the caller restores), or
 * restore it (a BusRestore). A stream that has its counter ignores this.
 */
export type BusOnLost = "fresh" | "ask" | BusRestore;

/** A fence: appends of a run carry its lease token; one older than the thread's fence is refused. */
export interface BusFence {
  token: number;
}

export class BusUnavailableError extends Error {
  readonly code = "BUS_UNAVAILABLE";
  override readonly name = "BusUnavailableError";
}

/** The thread has no counter (new, or its stream was lost) and the append said "ask": nothing was appended. */
export class BusStreamLostError extends Error {
  readonly code = "BUS_STREAM_LOST";
  override readonly name = "BusStreamLostError";
}

/** The append carried a fence token older than the thread's: the run lost its lease. */
export class BusFencedError extends Error {
  readonly code = "BUS_FENCED";
  override readonly name = "BusFencedError";
}

export interface EventBus {
  /**
   * Appends in order; each item gets the thread's next seq. Resolves with the
   * first one's. Rejects with BusUnavailableError (nothing was appended),
   * BusFencedError, or BusStreamLostError (`onLost` "ask").
   */
  append(threadId: string, items: readonly BusAppend[], fence?: BusFence, onLost?: BusOnLost): Promise<number>;
  /** Appends only when the thread's stream is empty (seeding it from a checkpoint): the first seq, or null when it was not. */
  seed(threadId: string, items: readonly BusAppend[]): Promise<number | null>;
  /** Pins and the entries after `after` (at most `limit`), in one consistent read. */
  read(threadId: string, after: number, limit: number): Promise<BusSnapshot>;
  /**
   * Live entries of the thread from every node, in seq order, from some time
   * after the call resolves. Missed ones (a reconnect) are for the listener to
   * read(); `onReconnect` says when to look.
   */
  listen(threadId: string, onEntries: (entries: BusEntry[]) => void): Promise<() => void>;
  /** Called when the bus's connection came back after a loss (entries may have been missed). */
  onReconnect(listener: () => void): () => void;
  /** Raises the thread's fence to `token` (never lowers it). */
  fence(threadId: string, token: number): Promise<void>;
  /**
   * Node-to-node messages that are not a thread's events — review items for
   * queue subscribers, presence, run control: delivered live to every node
   * subscribed to the topic (the sender's own subscribers included), at most
   * once, no replay, no seq. Rejects with BusUnavailableError.
   */
  publish(topic: string, message: string): Promise<void>;
  /** Messages of a topic from some time after the call resolves; returns the unsubscribe. */
  subscribe(topic: string, onMessage: (message: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** Encodes a pin for the wire: "" | "s\tfield" | "d\tf1\tf2". Fields never contain tabs (they are ids and names). */
export function encodePin(pin: BusPin): string {
  if (pin === null) return "";
  return "set" in pin ? `s\t${pin.set}` : `d\t${pin.delete.join("\t")}`;
}
