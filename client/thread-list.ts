/**
 * `client.threads()`: the tenant's recent threads with their status, as a
 * live list — the `threads.subscribe` snapshot, then every `thread.status`
 * change the hub pushes (a run starting, pausing for review, ending; a new
 * thread). Newest first, at most the `limit` asked for. Restored on
 * reconnect by subscribing again (the new snapshot replaces the list).
 */
import { threadRecordSchema, type ProtocolEvent, type ThreadRecordJson } from "../hub/protocol/index.ts";
import type { Connection } from "./connection.ts";
import { Emitter, type IterateOptions, type Unsubscribe } from "./emitter.ts";
import { HubClientError } from "./errors.ts";

export interface ThreadListEvents {
  /** The list after every change, newest first. */
  threads: readonly ThreadRecordJson[];
}

/** Newest first by `updated_at`; ties by id, so the order is stable. */
const newestFirst = (a: ThreadRecordJson, b: ThreadRecordJson): number =>
  a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : a.thread_id < b.thread_id ? -1 : a.thread_id > b.thread_id ? 1 : 0;

/** The list with `record` in it, unless it already holds the same thread at a later or equal `updated_at`. Pure. */
export function upsertThread(list: readonly ThreadRecordJson[], record: ThreadRecordJson, limit: number): readonly ThreadRecordJson[] {
  const before = list.find((t) => t.thread_id === record.thread_id);
  if (before && before.updated_at >= record.updated_at) return list;
  return [...list.filter((t) => t !== before), record].sort(newestFirst).slice(0, limit);
}

/** The reply of `threads.subscribe`, checked with the record schema. */
function snapshotOf(result: Record<string, unknown>): { subscriptionId: string; threads: ThreadRecordJson[] } | HubClientError {
  const id = result["subscription_id"];
  const list = result["threads"];
  const bad = (why: string) => new HubClientError("protocol_error", `threads.subscribe: ${why}`, { method: "threads.subscribe" });
  if (typeof id !== "string" || !Array.isArray(list)) return bad("the reply has no subscription_id or threads");
  const threads: ThreadRecordJson[] = [];
  for (const item of list) {
    const parsed = threadRecordSchema.safeParse(item);
    if (!parsed.success) return bad(`a thread record of another shape: ${parsed.error.message}`);
    threads.push(parsed.data);
  }
  return { subscriptionId: id, threads };
}

export class ThreadListHandle {
  readonly #conn: Connection;
  readonly #emitter = new Emitter<ThreadListEvents>();
  #threads: readonly ThreadRecordJson[] = [];
  #limit = 50;
  #subscriptionId: string | undefined;
  #wanted = false;
  #established = false;
  /** Bumped by every subscribe and unsubscribe: a reply to an older subscribe is stale. */
  #generation = 0;

  constructor(connection: Connection) {
    this.#conn = connection;
  }

  on<K extends keyof ThreadListEvents>(event: K, listener: (value: ThreadListEvents[K]) => void): Unsubscribe {
    return this.#emitter.on(event, listener);
  }

  iterate<K extends keyof ThreadListEvents>(event: K, options?: IterateOptions): AsyncIterableIterator<ThreadListEvents[K]> {
    return this.#emitter.iterate(event, options);
  }

  /** Newest first; the same array until it changes. */
  get threads(): readonly ThreadRecordJson[] {
    return this.#threads;
  }
  get subscribed(): boolean {
    return this.#wanted;
  }
  get listenerCount(): number {
    return this.#emitter.listenerCount;
  }

  /** Starts following (idempotent): the `limit` most recently updated threads (1–200), then their changes. */
  async subscribe(limit = 50): Promise<void> {
    if (this.#wanted) return;
    this.#wanted = true;
    this.#limit = limit;
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
    this.#generation++;
    const id = this.#subscriptionId;
    this.#subscriptionId = undefined;
    if (id === undefined || this.#conn.state !== "open") return;
    await this.#conn.request({ method: "threads.unsubscribe", params: { subscription_id: id } });
  }

  async close(): Promise<void> {
    this.dispose();
    await this.unsubscribe();
  }

  /** @internal Stops listeners (the client is closing). */
  dispose(): void {
    this.#emitter.clear();
  }

  /** @internal The client routes every `thread.status` event here. */
  receive(event: ProtocolEvent): void {
    if (event.method !== "thread.status" || !this.#wanted) return;
    const { deleted, ...record } = event.params.data;
    if (deleted) {
      const kept = this.#threads.filter((t) => t.thread_id !== record.thread_id);
      if (kept.length !== this.#threads.length) this.#set(kept);
      return;
    }
    this.#set(upsertThread(this.#threads, record, this.#limit));
  }

  /** @internal */
  onDisconnect(): void {
    this.#subscriptionId = undefined;
  }

  /** @internal Resubscribes after a reconnect; the new snapshot replaces the list. */
  async restore(): Promise<void> {
    if (!this.#wanted || !this.#established) return;
    await this.#subscribeOnHub(true);
  }

  #subscribeOnHub(direct: boolean): Promise<void> {
    let refused: HubClientError | undefined;
    const generation = ++this.#generation;
    return this.#conn
      .request(
        { method: "threads.subscribe", params: { limit: this.#limit } },
        {
          direct,
          // Synchronous: the snapshot is in place before the changes that follow the reply.
          onSuccess: (result) => {
            const snapshot = snapshotOf(result);
            if (snapshot instanceof HubClientError) return void (refused = snapshot);
            // Unsubscribed (or subscribed again) while this was in flight, as a page shown and left at once.
            if (generation !== this.#generation) return void this.#drop(snapshot.subscriptionId);
            this.#subscriptionId = snapshot.subscriptionId;
            this.#established = true;
            this.#set([...snapshot.threads].sort(newestFirst).slice(0, this.#limit));
          },
        },
      )
      .then(() => {
        if (refused) throw refused;
      });
  }

  #drop(subscriptionId: string): void {
    if (this.#conn.state !== "open") return;
    this.#conn.request({ method: "threads.unsubscribe", params: { subscription_id: subscriptionId } }).catch(() => undefined);
  }

  #set(next: readonly ThreadRecordJson[]): void {
    if (next === this.#threads) return;
    this.#threads = next;
    this.#emitter.emit("threads", next);
  }
}
