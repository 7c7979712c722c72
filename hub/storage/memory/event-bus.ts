/**
 * MemoryEventBus: the event bus port in one process's memory, with the Redis
 * adapter's semantics (one counter per thread starting at Date.now() * 1000,
 * a bounded replay, baseline pins, a fence, live delivery after the append
 * resolves). For several hubs in one process (tests) and the port's
 * conformance suite; the embedded hub numbers events in its ThreadLog instead.
 */
import { BusFencedError, BusStreamLostError } from "../../threads/bus.ts";
import type { BusAppend, BusEntry, BusFence, BusOnLost, BusSnapshot, EventBus } from "../../threads/bus.ts";

interface Stream {
  head: number;
  entries: BusEntry[];
  pins: Map<string, BusEntry>;
  fence: number;
  listeners: Set<(entries: BusEntry[]) => void>;
}

export class MemoryEventBus implements EventBus {
  readonly #streams = new Map<string, Stream>();
  readonly #topics = new Map<string, Set<(message: string) => void>>();
  readonly #maxLen: number;
  readonly #now: () => number;

  constructor(options: { maxLen?: number; now?: () => number } = {}) {
    this.#maxLen = options.maxLen ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  #stream(threadId: string): Stream {
    let stream = this.#streams.get(threadId);
    if (stream === undefined) {
      stream = { head: 0, entries: [], pins: new Map(), fence: 0, listeners: new Set() };
      this.#streams.set(threadId, stream);
    }
    return stream;
  }

  #append(stream: Stream, items: readonly BusAppend[]): number {
    if (items.length === 0) throw new RangeError("append needs at least one event");
    if (stream.head === 0) stream.head = this.#now() * 1000;
    const first = stream.head + 1;
    const added = items.map((item, i): BusEntry => {
      const entry = { seq: first + i, payload: item.payload };
      const pin = item.pin;
      if (pin !== null && "set" in pin) stream.pins.set(pin.set, entry);
      else if (pin !== null) for (const field of pin.delete) stream.pins.delete(field);
      return entry;
    });
    stream.head += items.length;
    stream.entries.push(...added);
    if (stream.entries.length > this.#maxLen) stream.entries.splice(0, stream.entries.length - this.#maxLen);
    // Delivered after the append resolves, like a message from Redis.
    const listeners = [...stream.listeners];
    queueMicrotask(() => {
      for (const listener of listeners) listener(added.map((e) => ({ ...e })));
    });
    return first;
  }

  async append(threadId: string, items: readonly BusAppend[], fence?: BusFence, onLost: BusOnLost = "fresh"): Promise<number> {
    const stream = this.#stream(threadId);
    if (fence !== undefined && stream.fence > fence.token) {
      throw new BusFencedError(`thread ${threadId}: the run's lease token ${fence.token} is older than the thread's fence`);
    }
    if (stream.head === 0 && onLost === "ask") throw new BusStreamLostError(`thread ${threadId} has no stream on the bus`);
    if (stream.head === 0 && typeof onLost === "object") {
      stream.head = onLost.floor;
      for (const pin of onLost.pins) stream.pins.set(pin.field, { seq: pin.seq, payload: pin.payload });
    }
    return this.#append(stream, items);
  }

  /** Forgets every thread's stream, counter, pins and fence, as a Redis restarted without persistence does (tests). */
  lose(): void {
    for (const stream of this.#streams.values()) {
      stream.head = 0;
      stream.entries = [];
      stream.pins.clear();
      stream.fence = 0;
    }
  }

  async seed(threadId: string, items: readonly BusAppend[]): Promise<number | null> {
    const stream = this.#stream(threadId);
    if (stream.entries.length > 0) return null;
    return this.#append(stream, items);
  }

  async read(threadId: string, after: number, limit: number): Promise<BusSnapshot> {
    const stream = this.#streams.get(threadId);
    if (stream === undefined) return { pins: [], entries: [], oldest: null, head: 0 };
    const pins = [...stream.pins.values()].sort((a, b) => a.seq - b.seq).map((e) => ({ ...e }));
    const entries = stream.entries.filter((e) => e.seq > after).slice(0, limit).map((e) => ({ ...e }));
    return { pins, entries, oldest: stream.entries[0]?.seq ?? null, head: stream.head };
  }

  async listen(threadId: string, onEntries: (entries: BusEntry[]) => void): Promise<() => void> {
    const stream = this.#stream(threadId);
    stream.listeners.add(onEntries);
    return () => {
      stream.listeners.delete(onEntries);
    };
  }

  onReconnect(): () => void {
    // Memory never loses its connection.
    return () => {};
  }

  async fence(threadId: string, token: number): Promise<void> {
    const stream = this.#stream(threadId);
    stream.fence = Math.max(stream.fence, token);
  }

  async publish(topic: string, message: string): Promise<void> {
    const listeners = [...(this.#topics.get(topic) ?? [])];
    queueMicrotask(() => {
      for (const listener of listeners) listener(message);
    });
  }

  async subscribe(topic: string, onMessage: (message: string) => void): Promise<() => void> {
    let set = this.#topics.get(topic);
    if (set === undefined) {
      set = new Set();
      this.#topics.set(topic, set);
    }
    const listener = (message: string): void => onMessage(message);
    set.add(listener);
    return () => {
      const current = this.#topics.get(topic);
      if (current?.delete(listener) && current.size === 0) this.#topics.delete(topic);
    };
  }

  /** Threads with a live listener (tests check they are gone). */
  get listening(): number {
    let n = 0;
    for (const stream of this.#streams.values()) if (stream.listeners.size > 0) n++;
    return n;
  }

  /** Topics with a subscriber (tests check they are gone). */
  get topics(): number {
    return this.#topics.size;
  }

  async close(): Promise<void> {
    for (const stream of this.#streams.values()) stream.listeners.clear();
    this.#topics.clear();
  }
}
