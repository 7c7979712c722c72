/**
 * A thread's log on a node of several (an EventBus is configured): the log is
 * a replica of the bus's stream, fed in seq order from the bus's live
 * messages and, for what they missed (the node opened the thread late, lost
 * the bus for a while), from the bus's bounded replay. What the node publishes
 * goes to the bus through a BusOutbox and comes back numbered, like everyone
 * else's — so every node sees the same seqs in the same order.
 */
import type { ProtocolEvent } from "../protocol/index.ts";
import type { BusAppend, BusEntry, BusFence, BusOnLost, BusPin, BusRestore, EventBus } from "./bus.ts";
import { BusFencedError, BusStreamLostError } from "./bus.ts";
import type { ThreadLog } from "./thread-log.ts";

/**
 * How an event changes the thread's baseline on the bus; mirrors what
 * ThreadLog#track keeps (last root values and lifecycle, open questions).
 */
export function pinOf(event: ProtocolEvent): BusPin {
  switch (event.method) {
    case "values": {
      const keys = Object.keys(event.params.data);
      const onlyInterrupt = keys.length === 1 && keys[0] === "__interrupt__";
      return event.params.namespace.length === 0 && !onlyInterrupt ? { set: "values" } : null;
    }
    case "lifecycle":
      return event.params.namespace.length === 0 ? { set: "lifecycle" } : null;
    case "input.requested":
      return { set: `q:${event.params.data.interrupt_id}` };
    case "input.answered":
      return { delete: event.params.data.interrupt_ids.map((id) => `q:${id}`) };
    case "input.cancelled":
      return { delete: [`q:${event.params.data.interrupt_id}`] };
    default:
      return null;
  }
}

export interface OutboxLimits {
  /** Bytes (UTF-8) of events one thread may hold for the bus before its publisher waits (default 16 MiB). */
  maxBytes: number;
  /** Bytes (UTF-8) of events all threads of the node may hold together before every publisher waits (default 64 MiB). */
  maxTotalBytes: number;
  /** Events per append call (default 256). */
  batch: number;
  /** Wait between attempts while the bus is unavailable (default 200 ms). */
  retryMs: number;
}

export const DEFAULT_OUTBOX_LIMITS: OutboxLimits = { maxBytes: 16 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024, batch: 256, retryMs: 200 };

/**
 * The bytes every outbox of a node holds, together: a Redis outage with many
 * busy threads must not hold a thread's bound times the number of threads.
 */
export class OutboxBudget {
  readonly maxBytes: number;
  #bytes = 0;
  readonly #waiters = new Set<() => void>();

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get full(): boolean {
    return this.#bytes > this.maxBytes;
  }

  add(bytes: number): void {
    this.#bytes += bytes;
  }

  free(bytes: number): void {
    this.#bytes -= bytes;
    if (this.full) return;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves once the node's outboxes hold no more than the bound. */
  room(): Promise<void> {
    if (!this.full) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
    });
  }
}

interface Queued extends BusAppend {
  fence: BusFence | undefined;
  bytes: number;
}

/**
 * What one node has yet to append to one thread's stream, in order: one
 * append in flight at a time (so the bus sees the node's events in the order
 * they were sent), the rest batched behind it. While the bus is unavailable
 * the events wait here (nothing is lost) up to `maxBytes` for the thread and
 * the node's shared budget; past either `push` returns a promise the
 * publisher awaits: a run pauses rather than drop events. `onIdle` hears when
 * it holds nothing and has nothing in flight (its owner forgets it then).
 */
export class BusOutbox {
  readonly #bus: EventBus;
  readonly #threadId: string;
  readonly #limits: OutboxLimits;
  readonly #budget: OutboxBudget;
  readonly #onError: (error: unknown) => void;
  readonly #onFenced: (token: number) => void;
  readonly #onIdle: () => void;
  readonly #restore: () => Promise<BusRestore>;
  #queue: Queued[] = [];
  #bytes = 0;
  #flushing = false;
  #roomWaiters: Array<() => void> = [];
  #idleWaiters: Array<() => void> = [];
  #closed = false;

  constructor(options: {
    bus: EventBus;
    threadId: string;
    limits?: Partial<OutboxLimits>;
    budget?: OutboxBudget;
    onError?: (error: unknown) => void;
    onFenced?: (token: number) => void;
    onIdle?: () => void;
    /** What the thread held, should its stream turn out lost (or new) at an append; default: nothing (a fresh stream). */
    restore?: () => Promise<BusRestore>;
  }) {
    this.#bus = options.bus;
    this.#threadId = options.threadId;
    this.#limits = { ...DEFAULT_OUTBOX_LIMITS, ...options.limits };
    this.#budget = options.budget ?? new OutboxBudget(this.#limits.maxTotalBytes);
    this.#onError = options.onError ?? (() => {});
    this.#onFenced = options.onFenced ?? (() => {});
    this.#onIdle = options.onIdle ?? (() => {});
    this.#restore = options.restore ?? (async () => ({ floor: Date.now() * 1000, pins: [] }));
  }

  get size(): number {
    return this.#queue.length;
  }

  /** UTF-8 bytes of the events held. */
  get bytes(): number {
    return this.#bytes;
  }

  get idle(): boolean {
    return this.#queue.length === 0 && !this.#flushing;
  }

  push(events: readonly ProtocolEvent[], fence?: BusFence): Promise<void> | undefined {
    if (this.#closed) return undefined;
    let added = 0;
    for (const event of events) {
      const payload = JSON.stringify(event);
      const bytes = Buffer.byteLength(payload);
      this.#queue.push({ payload, pin: pinOf(event), fence, bytes });
      added += bytes;
    }
    this.#bytes += added;
    this.#budget.add(added);
    if (!this.#flushing) void this.#flush();
    if (this.#bytes <= this.#limits.maxBytes && !this.#budget.full) return undefined;
    return this.#room();
  }

  async #room(): Promise<void> {
    if (this.#bytes > this.#limits.maxBytes) await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
    await this.#budget.room();
  }

  /** Resolves once everything pushed so far is on the bus (or dropped by a fence). */
  drained(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops retrying; what is still queued is dropped. */
  close(): void {
    this.#closed = true;
    this.#queue = [];
    this.#release(this.#bytes);
    this.#wake();
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    // A stream the bus does not have (new, or lost with Redis's data) is restored by the append that finds it so.
    let onLost: BusOnLost = "ask";
    while (this.#queue.length > 0 && !this.#closed) {
      const first = this.#queue[0]!;
      let n = 1;
      // One batch shares one fence (a run's events and review events may interleave).
      while (n < this.#queue.length && n < this.#limits.batch && this.#queue[n]!.fence?.token === first.fence?.token) n++;
      const batch = this.#queue.slice(0, n);
      try {
        await this.#bus.append(this.#threadId, batch, first.fence, onLost);
        onLost = "ask";
      } catch (error) {
        if (error instanceof BusStreamLostError) {
          try {
            onLost = await this.#restore();
          } catch (restoreError) {
            this.#onError(restoreError);
            onLost = "fresh";
          }
          continue;
        }
        if (error instanceof BusFencedError) {
          // The run lost its lease: its events are not the thread's any more.
          const token = first.fence?.token ?? 0;
          this.#drop((q) => q.fence?.token === token);
          this.#onFenced(token);
          continue;
        }
        this.#onError(error);
        await new Promise((resolve) => setTimeout(resolve, this.#limits.retryMs).unref());
        continue;
      }
      this.#queue.splice(0, n);
      this.#release(batch.reduce((sum, item) => sum + item.bytes, 0));
      this.#wake();
    }
    this.#flushing = false;
    this.#wake();
    if (this.idle && !this.#closed) this.#onIdle();
  }

  #release(bytes: number): void {
    this.#bytes -= bytes;
    this.#budget.free(bytes);
  }

  #drop(match: (q: Queued) => boolean): void {
    const kept = this.#queue.filter((q) => !match(q));
    const bytes = kept.reduce((sum, q) => sum + q.bytes, 0);
    this.#release(this.#bytes - bytes);
    this.#queue = kept;
  }

  #wake(): void {
    if (this.#bytes <= this.#limits.maxBytes) for (const resolve of this.#roomWaiters.splice(0)) resolve();
    if (this.idle) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}

/**
 * Feeds a ThreadLog from the bus: backfill first (pins, then the replay),
 * live messages after, each gap filled from the replay — or, when the replay
 * no longer holds it (trimmed, or Redis lost its data), the log's subscribers
 * are sent a resync.
 */
export class BusReplica {
  readonly log: ThreadLog;
  readonly #bus: EventBus;
  readonly #readLimit: number;
  readonly #onError: (error: unknown) => void;
  #unlisten: (() => void) | undefined;
  #unreconnect: (() => void) | undefined;
  /** Live entries that came while a backfill or gap fill was in flight. */
  #held: BusEntry[] | undefined = [];
  #closed = false;

  constructor(options: { bus: EventBus; log: ThreadLog; readLimit: number; onError?: (error: unknown) => void }) {
    this.#bus = options.bus;
    this.log = options.log;
    this.#readLimit = options.readLimit;
    this.#onError = options.onError ?? (() => {});
  }

  /** Listens, then backfills; resolves once the log holds what the bus held. Returns the bus's head. */
  async start(): Promise<number> {
    this.#unlisten = await this.#bus.listen(this.log.threadId, (entries) => this.#live(entries));
    this.#unreconnect = this.#bus.onReconnect(() => this.#fill());
    return this.#catchUp(true);
  }

  /** Reads what the log lacks from the bus and ingests it (also used after seeding). */
  async catchUp(): Promise<void> {
    this.#held ??= [];
    await this.#catchUp(false);
  }

  close(): void {
    this.#closed = true;
    this.#unlisten?.();
    this.#unreconnect?.();
  }

  #live(entries: BusEntry[]): void {
    if (this.#closed) return;
    if (this.#held !== undefined) {
      this.#held.push(...entries);
      return;
    }
    const first = entries[0];
    if (first !== undefined && first.seq > this.log.headSeq + 1) {
      this.#held = [...entries];
      this.#fill();
      return;
    }
    this.#ingest(entries);
  }

  #fill(): void {
    this.#held ??= [];
    this.#catchUp(false).catch((error: unknown) => {
      this.#onError(error);
      // The bus is away: the reconnect listener fills when it is back.
      this.#drainHeld();
    });
  }

  async #catchUp(initial: boolean): Promise<number> {
    try {
      const head = this.log.headSeq;
      const snapshot = await this.#bus.read(this.log.threadId, head, this.#readLimit);
      if (this.#closed) return snapshot.head;
      const firstEntry = snapshot.entries[0]?.seq ?? snapshot.head + 1;
      // What the replay no longer holds: the pins stand in for the baseline.
      const lost = snapshot.oldest === null ? snapshot.head > head : snapshot.oldest > head + 1;
      if (initial || lost) this.#ingest(snapshot.pins.filter((p) => p.seq < firstEntry && p.seq > head));
      if (lost && snapshot.head > 0) this.log.markGap(firstEntry);
      this.#ingest(snapshot.entries);
      if (lost && !initial && head > 0) this.log.resyncSubscribers("evicted");
      return snapshot.head;
    } finally {
      this.#drainHeld();
    }
  }

  #drainHeld(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    const first = held.find((e) => e.seq > this.log.headSeq);
    if (first !== undefined && first.seq > this.log.headSeq + 1) {
      // Still a hole (the fill raced a message): one more read.
      this.#held = held;
      this.#fill();
      return;
    }
    this.#ingest(held);
  }

  #ingest(entries: readonly BusEntry[]): void {
    const fresh = entries.filter((e) => e.seq > this.log.headSeq);
    if (fresh.length === 0) return;
    try {
      this.log.ingest(fresh.map((e) => ({ seq: e.seq, event: JSON.parse(e.payload) as ProtocolEvent })));
    } catch (error) {
      this.#onError(error);
    }
  }
}
