/**
 * The hub's thread logs, one per thread, created on first use. A thread that
 * already has state when its log is created (the hub restarted) gets its log
 * seeded from the checkpoint, so late joiners still see the values and the
 * pending interrupts.
 *
 * Seqs are not persisted, yet an SDK client that outlived the restart dedupes
 * by event_id = String(seq): a reloaded log must never reuse a seq. It starts
 * at Date.now() * 1000, above any seq of an earlier process unless that one
 * published over 1,000 events per millisecond of its life on this thread.
 *
 * With an event bus (several nodes), each log is a replica of the bus's
 * stream (replica.ts): the bus numbers events, a thread new to the bus is
 * seeded there once from its checkpoint, and what this node publishes for a
 * thread — with or without a log open here — goes out through the thread's
 * outbox. A replica is closed when its log is dropped.
 */
import type { ProtocolEvent } from "../protocol/index.ts";
import type { BusFence, BusRestore, EventBus } from "./bus.ts";
import { BusOutbox, BusReplica, DEFAULT_OUTBOX_LIMITS, OutboxBudget, pinOf as pinFor, type OutboxLimits } from "./replica.ts";
import { ThreadLog, type EventTransformer } from "./thread-log.ts";

/** What a reloaded thread's log starts from (null: a thread with no state yet). */
export interface ThreadSeed {
  events: ProtocolEvent[];
  runId: string | null;
}

export interface ThreadLogsOptions {
  capacity?: number;
  transform?: EventTransformer | undefined;
  now?: () => number;
  /**
   * Logs kept in memory (default 1,000). Past it, the least recently used
   * logs that no one subscribes to and `inUse` does not claim are dropped;
   * they are rebuilt from the checkpoint when needed again.
   */
  maxLogs?: number;
  inUse?: (threadId: string) => boolean;
  /** Several nodes: the bus that numbers and carries every thread's events. */
  bus?: EventBus;
  outbox?: Partial<OutboxLimits>;
  onError?: (error: unknown, context: string) => void;
  /** Several nodes: a thread's baseline from its checkpoint, to restore a lost stream without the thread's log open here. */
  seedOf?: (threadId: string) => Promise<ThreadSeed | null>;
}

export class ThreadLogs {
  readonly #logs = new Map<string, ThreadLog>();
  readonly #loading = new Map<string, Promise<ThreadLog>>();
  readonly #options: ThreadLogsOptions;
  readonly #replicas = new Map<string, BusReplica>();
  /** Threads with events on their way to the bus; an outbox is forgotten once it is idle. */
  readonly #outboxes = new Map<string, BusOutbox>();
  readonly #budget: OutboxBudget;
  /** The run fence of each thread this node runs (set by the run's lease). */
  readonly #fences = new Map<string, BusFence>();
  readonly #fenced = new Map<string, (token: number) => void>();

  constructor(options: ThreadLogsOptions = {}) {
    this.#options = options;
    this.#budget = new OutboxBudget(options.outbox?.maxTotalBytes ?? DEFAULT_OUTBOX_LIMITS.maxTotalBytes);
  }

  get(threadId: string): ThreadLog | undefined {
    return this.#logs.get(threadId);
  }

  #touch(threadId: string, log: ThreadLog): void {
    // Map order is recency order.
    this.#logs.delete(threadId);
    this.#logs.set(threadId, log);
  }

  #evict(keep: string): void {
    const max = this.#options.maxLogs ?? 1000;
    if (this.#logs.size <= max) return;
    for (const [threadId, log] of this.#logs) {
      if (this.#logs.size <= max) return;
      if (threadId !== keep && log.subscriberCount === 0 && !this.#options.inUse?.(threadId)) this.drop(threadId);
    }
  }

  /** The thread's log, creating it (seeded from `load` when it returns a seed). */
  async open(threadId: string, load: () => Promise<ThreadSeed | null>): Promise<ThreadLog> {
    const existing = this.#logs.get(threadId);
    if (existing) {
      this.#touch(threadId, existing);
      return existing;
    }
    const loading = this.#loading.get(threadId);
    if (loading) return loading;
    const promise = (async () => {
      try {
        if (this.#options.bus) return await this.#openReplica(threadId, this.#options.bus, load);
        const seed = await load();
        const now = this.#options.now ?? Date.now;
        const log = new ThreadLog({
          threadId,
          capacity: this.#options.capacity,
          transform: this.#options.transform,
          startSeq: seed === null ? 0 : now() * 1000,
        });
        if (seed !== null) {
          if (seed.runId !== null) log.beginRun(seed.runId);
          log.publish(seed.events);
        }
        this.#logs.set(threadId, log);
        this.#evict(threadId);
        return log;
      } finally {
        this.#loading.delete(threadId);
      }
    })();
    this.#loading.set(threadId, promise);
    return promise;
  }

  async #openReplica(threadId: string, bus: EventBus, load: () => Promise<ThreadSeed | null>): Promise<ThreadLog> {
    const onError = this.#options.onError ?? (() => {});
    const log = new ThreadLog({
      threadId,
      capacity: this.#options.capacity,
      transform: this.#options.transform,
      appender: (events) => this.#outbox(threadId).push(events, this.#fences.get(threadId)),
    });
    const capacity = log.capacity;
    const replica = new BusReplica({ bus, log, readLimit: capacity + 1_000, onError: (error) => onError(error, `thread ${threadId} on the bus`) });
    try {
      const head = await replica.start();
      if (head === 0) {
        // New to the bus (or the bus lost it): seeded once, from the checkpoint, by whichever node gets here first.
        const seed = await load();
        if (seed !== null && seed.events.length > 0) {
          const events = log.transform(seed.events);
          if (events.length > 0) await bus.seed(threadId, events.map((e) => ({ payload: JSON.stringify(e), pin: pinFor(e) })));
          await replica.catchUp();
        }
      }
    } catch (error) {
      replica.close();
      throw error;
    }
    this.#replicas.set(threadId, replica);
    this.#logs.set(threadId, log);
    this.#evict(threadId);
    return log;
  }

  #outbox(threadId: string): BusOutbox {
    let outbox = this.#outboxes.get(threadId);
    if (outbox === undefined) {
      const bus = this.#options.bus;
      if (bus === undefined) throw new Error("no event bus");
      const created: BusOutbox = new BusOutbox({
        bus,
        threadId,
        ...(this.#options.outbox ? { limits: this.#options.outbox } : {}),
        budget: this.#budget,
        onError: (error) => this.#options.onError?.(error, `publishing thread ${threadId} to the bus`),
        onFenced: (token) => this.#fenced.get(threadId)?.(token),
        restore: () => this.#restoreOf(threadId),
        // Nothing held, nothing in flight: the next event makes a new one (order is kept — this one has nothing left).
        onIdle: () => {
          if (this.#outboxes.get(threadId) === created) this.#outboxes.delete(threadId);
        },
      });
      outbox = created;
      this.#outboxes.set(threadId, outbox);
    }
    return outbox;
  }

  /**
   * What this node knows of a thread whose stream the bus lost (Redis came
   * back empty): the seqs go on from the highest it saw (or the clock, if
   * higher), and its log's baseline — last values and lifecycle, open
   * questions — is put back as the thread's pins, so a node that opens the
   * thread later still gets it. Subscribers here get a resync from the gap.
   * Without a log here, the baseline is read from the checkpoint (as a new
   * log is seeded) and numbered from the clock; a thread with neither starts
   * fresh.
   */
  async #restoreOf(threadId: string): Promise<BusRestore> {
    const floor = (this.#options.now ?? Date.now)() * 1000;
    const log = this.#logs.get(threadId);
    if (log !== undefined && log.headSeq > 0) {
      const pins = log.baselineEntries().flatMap((entry) => {
        const pin = pinFor(entry.event);
        if (pin === null || !("set" in pin)) return [];
        const { seq: _seq, event_id: _eventId, ...event } = entry.event;
        return [{ field: pin.set, seq: entry.seq, payload: JSON.stringify(event) }];
      });
      return { floor: Math.max(floor, log.headSeq), pins };
    }
    const seed = log === undefined ? await this.#options.seedOf?.(threadId) : null;
    const raw = seed?.events ?? [];
    const events = this.#options.transform ? raw.flatMap((e) => this.#transformOne(threadId, e)) : raw;
    const pins = events.flatMap((event) => {
      const pin = pinFor(event);
      return pin !== null && "set" in pin ? [{ field: pin.set, payload: JSON.stringify(event) }] : [];
    });
    return { floor: floor + pins.length, pins: pins.map((pin, i) => ({ ...pin, seq: floor + i + 1 })) };
  }

  /**
   * Publishes events of a thread whether or not its log is open here (review
   * events: an answer taken by this node for a run on another). One node: the
   * open log numbers them (none open: nobody to tell). Several: the bus does.
   */
  send(threadId: string, events: readonly ProtocolEvent[]): Promise<void> | undefined {
    const log = this.#logs.get(threadId);
    if (log) return log.send(events);
    if (!this.#options.bus) return undefined;
    const list = this.#options.transform ? events.flatMap((e) => this.#transformOne(threadId, e)) : events;
    return list.length === 0 ? undefined : this.#outbox(threadId).push(list);
  }

  #transformOne(threadId: string, event: ProtocolEvent): ProtocolEvent[] {
    try {
      return [this.#options.transform?.(event, threadId) ?? null].filter((e): e is ProtocolEvent => e !== null);
    } catch {
      return [];
    }
  }

  /**
   * A run of this node holds the thread's lease with this token: its events
   * carry it, and `onFenced` hears when the bus refused them (another node
   * took the lease). `undefined` ends it.
   */
  setFence(threadId: string, fence: { token: number; onFenced: (token: number) => void } | undefined): void {
    if (fence === undefined) {
      this.#fences.delete(threadId);
      this.#fenced.delete(threadId);
      return;
    }
    this.#fences.set(threadId, { token: fence.token });
    this.#fenced.set(threadId, fence.onFenced);
  }

  /** Resolves once what this node sent for the thread is on the bus (immediately without a bus). */
  async drained(threadId: string): Promise<void> {
    await this.#outboxes.get(threadId)?.drained();
  }

  /** Forgets a deleted thread's log (its subscribers are the caller's to close). */
  drop(threadId: string): void {
    this.#logs.delete(threadId);
    this.#replicas.get(threadId)?.close();
    this.#replicas.delete(threadId);
  }

  /** What this node holds for the bus: threads with events on their way and their UTF-8 bytes, together. */
  busBacklog(): { threads: number; bytes: number } {
    return { threads: this.#outboxes.size, bytes: this.#budget.bytes };
  }

  /** Waits (up to `ms`) for the outboxes to reach the bus, then stops every replica. */
  async close(ms = 2_000): Promise<void> {
    const drained = Promise.all([...this.#outboxes.values()].map((o) => o.drained()));
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
    for (const outbox of this.#outboxes.values()) outbox.close();
    for (const replica of this.#replicas.values()) replica.close();
    this.#outboxes.clear();
    this.#replicas.clear();
  }

  get size(): number {
    return this.#logs.size;
  }
}
