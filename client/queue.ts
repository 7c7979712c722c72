/**
 * `client.queue(name)`: the open review items of a queue as a live list,
 * with answer / claim / release on an item (sent to the item's thread), and
 * the queue's presence room. Restored on reconnect by subscribing again
 * (which re-sends the snapshot).
 *
 * The snapshot arrives as the reply's `items` and `claims` (counts) followed by
 * that many `input.requested` events (each open item, with its
 * `input.claimed` if claimed). The list is replaced once they are all in, so
 * a resubscribe never shows an empty list, nor a claimed item as open, in between.
 */
import type { ProtocolEvent } from "../hub/protocol/index.ts";
import type { Connection } from "./connection.ts";
import { Emitter, type IterateOptions, type Unsubscribe } from "./emitter.ts";
import type { InterruptView, ResolvedInterrupt } from "./projections/interrupts.ts";
import { LocalPresence } from "./local-presence.ts";
import { emptyPresence, presenceList, reducePresence, type PresenceEntry, type PresenceState } from "./projections/presence.ts";
import { emptyQueue, queueFromSnapshot, reduceNamedQueue, type QueueState } from "./projections/queue.ts";
import { requireString } from "./thread.ts";

export interface QueueEvents {
  /** The open items (open or claimed), after every change. */
  items: readonly InterruptView[];
  resolved: readonly ResolvedInterrupt[];
  /** Who is looking at the queue. */
  presence: PresenceEntry[];
}

export class QueueHandle {
  readonly name: string;
  readonly #conn: Connection;
  readonly #emitter = new Emitter<QueueEvents>();
  #state: QueueState = emptyQueue();
  #room: PresenceState = emptyPresence();
  #presenceList: PresenceEntry[] = [];
  readonly #presence: LocalPresence;
  #subscriptionId: string | undefined;
  #wanted = false;
  /** The hub accepted the subscription once: a reconnect restores it. */
  #established = false;
  /** A snapshot still arriving: the list it builds, and how many items are still to come. */
  #snapshot: { state: QueueState; remaining: number } | undefined;

  constructor(name: string, connection: Connection) {
    this.name = name;
    this.#conn = connection;
    this.#presence = new LocalPresence((update) => {
      if (this.#conn.state === "open") this.#sendPresence(update, false).catch(() => undefined);
    });
  }

  on<K extends keyof QueueEvents>(event: K, listener: (value: QueueEvents[K]) => void): Unsubscribe {
    return this.#emitter.on(event, listener);
  }

  /** The same values as `on(event)`, as an async iterator (`break` unsubscribes). */
  iterate<K extends keyof QueueEvents>(event: K, options?: IterateOptions): AsyncIterableIterator<QueueEvents[K]> {
    return this.#emitter.iterate(event, options);
  }

  get items(): readonly InterruptView[] {
    return this.#state.pending;
  }
  get resolved(): readonly ResolvedInterrupt[] {
    return this.#state.resolved;
  }
  get presence(): PresenceEntry[] {
    return this.#presenceList;
  }
  get subscribed(): boolean {
    return this.#wanted;
  }
  get listenerCount(): number {
    return this.#emitter.listenerCount;
  }

  /** Starts following the queue (idempotent). */
  async subscribe(): Promise<void> {
    if (this.#wanted) return;
    this.#wanted = true;
    try {
      await this.#subscribeOnHub(false);
    } catch (error) {
      this.#wanted = false;
      throw error;
    }
  }

  async unsubscribe(): Promise<void> {
    this.#wanted = false;
    this.#established = false;
    const id = this.#subscriptionId;
    this.#subscriptionId = undefined;
    if (id === undefined || this.#conn.state !== "open") return;
    await this.#conn.request({ method: "queue.unsubscribe", params: { subscription_id: id } });
  }

  /**
   * Answers an item (first authorized answer wins: `already_answered` otherwise),
   * bound to the payload it shows: `stale_payload` when the item changed since
   * (its `payload_digest` is sent along when the view has one; `bind: false` sends none).
   */
  async answer(item: InterruptView, value: unknown, options: { bind?: boolean } = {}): Promise<void> {
    const digest = options.bind === false ? undefined : item.payload_digest;
    await this.#conn.request({
      thread_id: this.#threadOf(item),
      method: "input.respond",
      params: { namespace: [...item.namespace], interrupt_id: item.interrupt_id, response: value, ...(digest === undefined ? {} : { payload_digest: digest }) },
    });
  }

  /** Moves an item to another queue or candidates (`admin` / override roles), or delegates one's place to named `users`. */
  async reassign(item: InterruptView, target: { queue?: string; users?: string[]; roles?: string[]; reason?: string }): Promise<void> {
    await this.#conn.request({ thread_id: this.#threadOf(item), method: "input.reassign", params: { interrupt_id: item.interrupt_id, ...target } });
  }

  async claim(item: InterruptView, ttlMs?: number): Promise<{ expires_at: number }> {
    const result = await this.#conn.request({
      thread_id: this.#threadOf(item),
      method: "input.claim",
      params: { interrupt_id: item.interrupt_id, ...(ttlMs === undefined ? {} : { ttl_ms: ttlMs }) },
    });
    requireString(result, "interrupt_id", "input.claim");
    const expires = result["expires_at"];
    return { expires_at: typeof expires === "number" ? expires : Number.NaN };
  }

  async release(item: InterruptView): Promise<void> {
    await this.#conn.request({ thread_id: this.#threadOf(item), method: "input.release", params: { interrupt_id: item.interrupt_id } });
  }

  /** Publishes this client's presence in the queue's room (null = leave); renewed while set. */
  async setPresence(state: Record<string, unknown> | null): Promise<void> {
    await this.#sendPresence(this.#presence.set(state), false);
  }

  async close(): Promise<void> {
    this.dispose();
    await this.unsubscribe();
  }

  /** @internal Stops timers and listeners (the client is closing). */
  dispose(): void {
    this.#presence.dispose();
    this.#emitter.clear();
  }

  /** @internal Events the client routed to this queue. */
  receive(event: ProtocolEvent): void {
    if (event.method === "presence") {
      const room = reducePresence(this.#room, event.params.data.update);
      if (room === this.#room) return;
      this.#room = room;
      this.#presenceList = presenceList(room);
      this.#emitter.emit("presence", this.#presenceList);
      return;
    }
    const snapshot = this.#snapshot;
    if (snapshot) {
      snapshot.state = reduceNamedQueue(snapshot.state, event, this.name);
      // The snapshot is its items' input.requested and their claims' input.claimed: apply it whole.
      if ((event.method === "input.requested" || event.method === "input.claimed") && --snapshot.remaining === 0) {
        this.#snapshot = undefined;
        this.#set(snapshot.state);
      }
      return;
    }
    this.#set(reduceNamedQueue(this.#state, event, this.name));
  }

  /** Whether this queue knows the item an event is about (in its list, or in a snapshot still arriving). */
  knows(threadId: string | undefined, interruptId: string): boolean {
    const has = (state: QueueState) => state.pending.some((i) => i.interrupt_id === interruptId && (threadId === undefined || i.thread_id === threadId));
    return has(this.#state) || (this.#snapshot !== undefined && has(this.#snapshot.state));
  }

  /** @internal */
  onDisconnect(): void {
    this.#subscriptionId = undefined;
    // Cut off mid-snapshot: the resubscribe sends a whole new one.
    this.#snapshot = undefined;
  }

  /** @internal Resubscribes after a reconnect; the new snapshot replaces the items. */
  async restore(): Promise<void> {
    if (!this.#wanted || !this.#established) return;
    await this.#subscribeOnHub(true);
    const update = this.#presence.restore();
    if (update !== null) await this.#sendPresence(update, true).catch(() => undefined);
  }

  #subscribeOnHub(direct: boolean): Promise<void> {
    return this.#conn
      .request(
        { method: "queue.subscribe", params: { queue: this.name } },
        {
          direct,
          // Synchronous: the snapshot replaces the list before replayed events are applied.
          onSuccess: (result) => {
            const id = result["subscription_id"];
            this.#subscriptionId = typeof id === "string" ? id : undefined;
            this.#established = true;
            // The room's current states follow the snapshot; states of who left meanwhile must go.
            this.#room = emptyPresence();
            const items = result["items"];
            // A hub before `claims` sends the claims anyway; they then apply after the list, as live events.
            const claims = typeof result["claims"] === "number" ? result["claims"] : 0;
            const fresh = queueFromSnapshot(this.#state, []);
            if (typeof items === "number" && items > 0) this.#snapshot = { state: fresh, remaining: items + claims };
            else this.#set(fresh);
          },
        },
      )
      .then(() => undefined);
  }

  #sendPresence(update: string, direct: boolean): Promise<Record<string, unknown>> {
    return this.#conn.request({ method: "presence.update", params: { update, queue: this.name } }, { direct });
  }

  #threadOf(item: InterruptView): string {
    if (item.thread_id === undefined) throw new TypeError(`queue item ${item.interrupt_id} has no thread_id`);
    return item.thread_id;
  }

  #set(next: QueueState): void {
    const before = this.#state;
    if (next === before) return;
    this.#state = next;
    if (next.pending !== before.pending) this.#emitter.emit("items", next.pending);
    if (next.resolved !== before.resolved) this.#emitter.emit("resolved", next.resolved);
  }
}
