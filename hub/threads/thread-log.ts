/**
 * The per-thread event log: gives every event the thread's next `seq` (and
 * `event_id` = String(seq)), encodes it once, keeps a bounded replay buffer
 * and fans the same encoded text out to every subscriber that wants it.
 *
 * It also keeps the thread's baseline, derived from the events it published
 * (so it is always consistent with `seq`): the last root `values`, the
 * `input.requested` entries still pending, and the current run's status.
 * Replay on subscribe = that baseline + the current run's events; a resume is
 * a new run, so an answered `input.requested` never reappears as pending.
 */
import { REVIEW_EVENT_METHODS, channelOf, matchesRoute } from "../protocol/index.ts";
import { encodeEventFrame, framePayload } from "../ws/frames.ts";
import type { Channel, EventOf, Namespace, PendingInterrupt, ProtocolEvent, ResyncData, RunStatus, SubscriptionFilter } from "../protocol/index.ts";

/**
 * One published event: the same object and bytes go to every subscriber.
 *
 * Entries live in the replay buffer through many young-generation
 * collections, and every object they hold lengthens those pauses (the
 * fan-out benchmark's tail latency). So the event's JSON is kept only inside
 * its WebSocket frame, outside the JS heap, and once the entry has been
 * published and observed the log drops the parsed event of the high-volume
 * kinds (tokens, custom, updates…): replay needs only the channel,
 * namespace and bytes, and `event` decodes the frame again for the rare
 * caller that wants it later.
 */
export class LogEntry {
  readonly seq: number;
  /** The event's WebSocket TEXT frame, encoded once (its payload is the event's JSON). */
  readonly frame: Buffer;
  readonly method: ProtocolEvent["method"];
  /** What subscription filters match on, kept after the parsed event is dropped. */
  readonly channel: Channel | null;
  readonly namespace: Namespace;
  /** The run that published it (review events carry the run that asked). */
  readonly runId: string | undefined;
  /** Its SSE frame, made by the first SSE stream that sends it (transports/sse.ts). */
  sseFrame: Uint8Array | undefined = undefined;
  #event: ProtocolEvent | undefined;

  constructor(event: ProtocolEvent & { seq: number }) {
    this.seq = event.seq;
    this.frame = encodeEventFrame(event);
    this.method = event.method;
    this.channel = channelOf(event);
    this.namespace = event.params.namespace;
    this.runId = event.run_id;
    this.#event = event;
  }

  /** The event: the object published, or (once dropped) decoded again from the frame. */
  get event(): ProtocolEvent {
    return this.#event ?? (JSON.parse(this.text) as ProtocolEvent);
  }

  /** Drops the parsed event; `event` decodes the frame from now on. */
  release(): void {
    this.#event = undefined;
  }

  /** The event's JSON (the frame's payload). */
  get payload(): Buffer {
    return framePayload(this.frame);
  }

  /** The event's JSON as a string, decoded from the frame. */
  get text(): string {
    return this.payload.toString("utf8");
  }
}

export interface LogSubscriber {
  /** Whether this subscriber wants the event (any of its filters matches); `channel` is the event's, worked out once for all subscribers. */
  wants(event: ProtocolEvent, channel: Channel | null): boolean;
  deliver(entry: LogEntry): void;
}

/** Redacts, rewrites or drops (null) an event before it gets a seq and is encoded. */
export type EventTransformer = (event: ProtocolEvent, threadId: string) => ProtocolEvent | null;

/**
 * Where a log on a bus sends what its node publishes (see replica.ts); the
 * events come back, numbered by the bus, through ingest(). A promise means
 * "wait before publishing more" (the node's buffer for the bus is full).
 */
export type BusAppender = (events: readonly ProtocolEvent[]) => Promise<void> | undefined;

export interface ThreadLogOptions {
  threadId: string;
  /** Set on a node of several: the bus numbers the events, the log is its replica. */
  appender?: BusAppender;
  /** Max events kept for replay (default 10,000). */
  capacity?: number;
  /** The seq before the first event; see ThreadLogs for why a reloaded thread starts high. */
  startSeq?: number;
  transform?: EventTransformer | undefined;
}

export type ReplayResult = { kind: "events"; entries: LogEntry[] } | { kind: "resync"; event: EventOf<"resync"> };

export const DEFAULT_REPLAY_CAPACITY = 10_000;

const onlyInterruptKey = (data: Record<string, unknown>): boolean => {
  const keys = Object.keys(data);
  return keys.length === 1 && keys[0] === "__interrupt__";
};

/**
 * Channels whose entries keep their parsed event: the baseline (values, lifecycle, pending
 * input) reads them, and they are few next to tokens and custom events.
 */
const KEEP_PARSED: ReadonlySet<string> = new Set(["values", "lifecycle", "input"]);

/**
 * Review events published while no run is in progress (what happened to the
 * questions the last run left: claims, votes, answers, reassignments…); the
 * next run's replay starts with them. A question is asked by a run.
 */
const BETWEEN_RUNS: ReadonlySet<string> = new Set(REVIEW_EVENT_METHODS.filter((method) => method !== "input.requested"));

export class ThreadLog {
  readonly threadId: string;
  readonly #capacity: number;
  readonly #transform: EventTransformer | undefined;
  /** Ring buffer: #ring[(#first + i) % capacity] for i < #size. */
  readonly #ring: LogEntry[] = [];
  #first = 0;
  #size = 0;
  #seq: number;
  /** Seq of the first event of the current run (head + 1 before any). */
  #runStart: number;
  #run: { run_id: string | null; status: RunStatus } = { run_id: null, status: "idle" };
  /** Between runs: seq of the first event since the last one ended (review events), which the next run's replay includes. */
  #between: number | undefined;
  #inRun = false;
  #values: LogEntry | undefined;
  /** The last root lifecycle event: tells a late joiner where the run stands. */
  #lifecycle: LogEntry | undefined;
  readonly #pending = new Map<string, LogEntry>();
  readonly #answered = new Set<string>();
  readonly #subscribers = new Set<LogSubscriber>();
  /** The entries of the last publish call; their events are released at the next one. */
  #lastBatch: readonly LogEntry[] = [];
  readonly #appender: BusAppender | undefined;
  /** On a replica: below this seq the buffer has holes (pins kept past a trimmed replay). */
  #contiguousFrom = 0;

  constructor(options: ThreadLogOptions) {
    this.threadId = options.threadId;
    this.#appender = options.appender;
    this.#capacity = Math.max(1, options.capacity ?? DEFAULT_REPLAY_CAPACITY);
    this.#transform = options.transform;
    this.#seq = options.startSeq ?? 0;
    this.#runStart = this.#seq + 1;
  }

  /** Max events kept for replay. */
  get capacity(): number {
    return this.#capacity;
  }

  get headSeq(): number {
    return this.#seq;
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  get run(): { run_id: string | null; status: RunStatus } {
    return { ...this.#run };
  }

  /** The entries the baseline is made of (last root values and lifecycle, open questions), oldest first. */
  baselineEntries(): LogEntry[] {
    const entries = [this.#values, this.#lifecycle, ...this.#pending.values()].filter((e): e is LogEntry => e !== undefined);
    return entries.sort((a, b) => a.seq - b.seq);
  }

  /** Interrupts asked and not yet answered, as the clients have seen them. */
  pendingIds(): Set<string> {
    return new Set(this.#pending.keys());
  }

  /** Whether this log saw the interrupt answered (for `already_answered`). */
  wasAnswered(interruptId: string): boolean {
    return this.#answered.has(interruptId);
  }

  /** Later events belong to this run; replay starts here. (A replica learns it from the run's `started` event.) */
  beginRun(runId: string): void {
    if (this.#appender) return;
    this.#beginRun(runId, this.#seq + 1);
  }

  #beginRun(runId: string, seq: number): void {
    this.#runStart = this.#between ?? seq;
    this.#between = undefined;
    this.#inRun = true;
    this.#run = { run_id: runId, status: "started" };
  }

  /** The events as the log would publish them: through the transformer, dropped ones left out. */
  transform(events: readonly ProtocolEvent[]): ProtocolEvent[] {
    if (!this.#transform) return [...events];
    return events.flatMap((e) => this.#transformed(e) ?? []);
  }

  /** Whether the bus numbers this log's events (a node of several). */
  get onBus(): boolean {
    return this.#appender !== undefined;
  }

  /**
   * What runs and reviews publish through: numbered here (one node), or sent
   * to the bus, which numbers them for every node and hands them back to
   * ingest(). A promise asks the caller to wait before sending more.
   */
  send(events: readonly ProtocolEvent[], options?: { transformed: boolean }): Promise<void> | undefined {
    if (this.#appender === undefined) {
      this.publish(events, options);
      return undefined;
    }
    const list = options?.transformed === true ? events : this.transform(events);
    return list.length === 0 ? undefined : this.#appender(list);
  }

  /**
   * Stamps, encodes once, buffers and fans out. Returns the entries published.
   * `transformed`: the events already went through transform().
   */
  publish(events: readonly ProtocolEvent[], options?: { transformed: boolean }): LogEntry[] {
    const published: LogEntry[] = [];
    const skipTransform = options?.transformed === true;
    for (const raw of events) {
      const event = skipTransform ? raw : this.#transformed(raw);
      if (event === null) continue;
      published.push(this.#add(++this.#seq, event));
    }
    this.#released(published);
    return published;
  }

  /**
   * A replica takes the bus's entries here, in seq order (older or repeated
   * seqs are ignored; a jump is a gap the caller announced with markGap).
   * The bus's events were transformed by the node that sent them.
   */
  ingest(entries: ReadonlyArray<{ seq: number; event: ProtocolEvent }>): LogEntry[] {
    const added: LogEntry[] = [];
    for (const { seq, event } of entries) {
      if (seq <= this.#seq) continue;
      this.#seq = seq;
      if (event.method === "lifecycle" && event.params.namespace.length === 0 && event.params.data.event === "started" && event.run_id !== undefined) {
        if (!this.#inRun || this.#run.run_id !== event.run_id) this.#beginRun(event.run_id, seq);
      }
      added.push(this.#add(seq, event));
    }
    this.#released(added);
    return added;
  }

  /** The replica's buffer has a hole below `seq`: replay from before it is a resync. */
  markGap(seq: number): void {
    this.#contiguousFrom = Math.max(this.#contiguousFrom, seq);
  }

  /** Tells every subscriber to start over from a fresh baseline (their events were lost on the bus). */
  resyncSubscribers(reason: ResyncData["reason"]): void {
    const event = this.resync(reason);
    const entry = new LogEntry({ ...event, seq: this.#seq });
    for (const subscriber of this.#subscribers) subscriber.deliver(entry);
  }

  #add(seq: number, event: ProtocolEvent): LogEntry {
    if (!this.#inRun && BETWEEN_RUNS.has(event.method)) this.#between ??= seq;
    const stamped = { ...event, seq, event_id: String(seq) };
    const entry = new LogEntry(stamped);
    this.#append(entry);
    this.#track(entry);
    for (const subscriber of this.#subscribers) if (subscriber.wants(stamped, entry.channel)) subscriber.deliver(entry);
    return entry;
  }

  #released(published: readonly LogEntry[]): void {
    // The previous batch has been fanned out and seen by the caller's observers (which
    // run right after publish returns): drop the parsed events the log no longer needs.
    for (const entry of this.#lastBatch) if (!KEEP_PARSED.has(entry.channel ?? "")) entry.release();
    this.#lastBatch = published;
  }

  /** A transform that throws drops the event: a broken redaction hook must fail closed. */
  #transformed(event: ProtocolEvent): ProtocolEvent | null {
    if (!this.#transform) return event;
    try {
      return this.#transform(event, this.threadId);
    } catch {
      return null;
    }
  }

  /** Drops pending entries the checkpoint no longer lists (cancelled, rolled back). */
  retainPending(stillPending: ReadonlySet<string>): void {
    for (const id of this.#pending.keys()) if (!stillPending.has(id)) this.#pending.delete(id);
  }

  attach(subscriber: LogSubscriber): void {
    this.#subscribers.add(subscriber);
  }

  detach(subscriber: LogSubscriber): void {
    this.#subscribers.delete(subscriber);
  }

  /**
   * What a new subscription gets before live events. Without `since`: the
   * baseline (values, pending questions, last root lifecycle) and the current
   * run's events. With `since`: exactly the events after it, or a `resync`
   * when they are gone from the buffer.
   */
  replay(filters: SubscriptionFilter | readonly SubscriptionFilter[], since?: number): ReplayResult {
    const list: readonly SubscriptionFilter[] = Array.isArray(filters) ? filters : [filters];
    const wanted = (e: LogEntry): boolean => list.some((f) => matchesRoute(e.channel, e.namespace, f));
    const oldest = Math.max(this.#size === 0 ? this.#seq + 1 : this.#at(0).seq, this.#contiguousFrom);
    if (since === undefined) {
      // A client without `since` claims no continuity, so a run whose start is
      // gone is no gap for it: it gets the baseline alone, then live events.
      const runKept = this.#runStart >= oldest;
      // An earlier run's terminal event would tell an SDK client that the current run ended.
      const lifecycle = runKept ? undefined : this.#lifecycle;
      const pinned = [this.#values, lifecycle, ...this.#pending.values()].filter(
        (e): e is LogEntry => e !== undefined && (!runKept || e.seq < this.#runStart),
      );
      const entries = [...new Set([...pinned, ...(runKept ? this.#since(this.#runStart - 1) : [])])].filter(wanted);
      entries.sort((a, b) => a.seq - b.seq);
      return { kind: "events", entries };
    }
    if (since > this.#seq) return { kind: "resync", event: this.resync("unknown_event_id") };
    if (since + 1 < oldest) return { kind: "resync", event: this.resync("evicted") };
    return { kind: "events", entries: this.#since(since).filter(wanted) };
  }

  /**
   * A fresh baseline at the head. Its event_id is not a seq, so an SDK client
   * (which dedupes by event_id) never confuses it with the event at head_seq.
   */
  resync(reason: ResyncData["reason"]): EventOf<"resync"> {
    const interrupts: PendingInterrupt[] = [...this.#pending.values()].flatMap(({ event }) =>
      event.method === "input.requested"
        ? [{
            interrupt_id: event.params.data.interrupt_id,
            namespace: event.params.namespace,
            ...(event.params.node === undefined ? {} : { node: event.params.node }),
            payload: event.params.data.payload,
          }]
        : [],
    );
    const values = this.#values?.event.method === "values" ? this.#values.event.params.data : null;
    return {
      type: "event",
      seq: this.#seq,
      event_id: `${this.#seq}:resync`,
      thread_id: this.threadId,
      method: "resync",
      params: {
        namespace: [],
        timestamp: Date.now(),
        data: { reason, head_seq: this.#seq, snapshot: { values, interrupts, run: { ...this.#run } } },
      },
    };
  }

  /** The buffered entries of one run with a seq above `since`, oldest first (the LangGraph run stream's replay). */
  runEntries(runId: string, since = -1): LogEntry[] {
    const out: LogEntry[] = [];
    for (let i = 0; i < this.#size; i++) {
      const entry = this.#at(i);
      if (entry.runId === runId && entry.seq > since) out.push(entry);
    }
    return out;
  }

  #at(i: number): LogEntry {
    const entry = this.#ring[(this.#first + i) % this.#capacity];
    if (entry === undefined) throw new Error(`thread log ${this.threadId}: no entry at ${i}`);
    return entry;
  }

  #since(seq: number): LogEntry[] {
    const out: LogEntry[] = [];
    for (let i = 0; i < this.#size; i++) {
      const entry = this.#at(i);
      if (entry.seq > seq) out.push(entry);
    }
    return out;
  }

  #append(entry: LogEntry): void {
    if (this.#size < this.#capacity) {
      this.#ring[(this.#first + this.#size) % this.#capacity] = entry;
      this.#size++;
      return;
    }
    this.#ring[this.#first] = entry;
    this.#first = (this.#first + 1) % this.#capacity;
  }

  #track(entry: LogEntry): void {
    const { event } = entry;
    switch (event.method) {
      case "values":
        if (event.params.namespace.length === 0 && !onlyInterruptKey(event.params.data)) this.#values = entry;
        return;
      case "input.requested":
        this.#pending.set(event.params.data.interrupt_id, entry);
        return;
      case "input.answered":
        for (const id of event.params.data.interrupt_ids) {
          this.#pending.delete(id);
          this.#answered.add(id);
        }
        return;
      case "input.cancelled":
        this.#pending.delete(event.params.data.interrupt_id);
        return;
      case "lifecycle":
        if (event.params.namespace.length === 0) {
          this.#lifecycle = entry;
          const data = event.params.data;
          this.#run = { run_id: event.run_id ?? this.#run.run_id, status: data.cancelled ? "cancelled" : data.event };
          if (data.event === "completed" || data.event === "failed" || data.event === "interrupted") this.#inRun = false;
        }
        return;
      default:
        return;
    }
  }
}
