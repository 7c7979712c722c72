/**
 * Thread records as they change: a fan-out of every created or updated
 * thread record to the watchers of its tenant (the web app's live threads
 * list, `threads.subscribe`), and the HubStore decorator that feeds it, so
 * every path that writes a thread record — runs starting and ending, a
 * restart's recovery, POST /threads, a deletion — is seen, whichever adapter
 * stores it; with several nodes, on every node (a bus topic).
 * Transport-agnostic: each watcher is a `deliver` callback.
 */
import { nanoid } from "nanoid";
import type { EventOf, ThreadRecordJson } from "../protocol/index.ts";
import type { EventBus } from "../threads/index.ts";
import type { HubStore, ThreadRecord } from "./store.ts";

/** A thread record on the wire, as `GET /threads`, `threads.subscribe` and `thread.status` carry it. */
export function threadRecordJson(thread: ThreadRecord): ThreadRecordJson {
  return {
    thread_id: thread.threadId,
    assistant_id: thread.assistantId,
    status: thread.status,
    metadata: thread.metadata,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
  };
}

/**
 * The `thread.status` event of a record: not a thread-log event (no `seq`), sent to
 * `threads.subscribe` watchers; `deleted`: the thread is gone (its last record).
 */
export function threadStatusEvent(thread: ThreadRecord, now: number = Date.now(), deleted = false): EventOf<"thread.status"> {
  const data = deleted ? { ...threadRecordJson(thread), deleted: true as const } : threadRecordJson(thread);
  return { type: "event", thread_id: thread.threadId, method: "thread.status", params: { namespace: [], timestamp: now, data } };
}

export interface ThreadWatcher {
  tenant: string;
  /** A record created or changed, or (`deleted`) the last record of a thread that is gone. */
  deliver(thread: ThreadRecord, deleted: boolean): void;
}

/** The bus topic of thread records, so every node's watchers see every node's changes. */
export const THREADS_TOPIC = "threads";

interface ThreadMessage {
  from: string;
  thread: ThreadRecord;
  deleted: boolean;
}

export class ThreadWatch {
  readonly #watchers = new Map<string, ThreadWatcher>();
  readonly #onError: (error: unknown) => void;
  #bus: { bus: EventBus; nodeId: string } | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(onError: (error: unknown) => void = () => undefined) {
    this.#onError = onError;
  }

  /** Several nodes: changes written here go to the other nodes' watchers too, and theirs come here. */
  async connect(bus: EventBus, nodeId: string): Promise<void> {
    this.#bus = { bus, nodeId };
    this.#unsubscribe = await bus.subscribe(THREADS_TOPIC, (text) => {
      try {
        const message = JSON.parse(text) as ThreadMessage;
        if (message.from !== nodeId) this.#deliver(message.thread, message.deleted);
      } catch (error) {
        this.#onError(error);
      }
    });
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#bus = undefined;
  }

  subscribe(watcher: ThreadWatcher): string {
    const id = `t_${nanoid(12)}`;
    this.#watchers.set(id, watcher);
    return id;
  }

  unsubscribe(id: string): boolean {
    return this.#watchers.delete(id);
  }

  get size(): number {
    return this.#watchers.size;
  }

  /** A record this node wrote (or, `deleted`, the last record of a thread it deleted). */
  publish(thread: ThreadRecord, deleted = false): void {
    this.#deliver(thread, deleted);
    const link = this.#bus;
    if (link === undefined) return;
    const message: ThreadMessage = { from: link.nodeId, thread, deleted };
    // At most once, like every topic: a watcher that missed one gets the record again with the next change.
    link.bus.publish(THREADS_TOPIC, JSON.stringify(message)).catch((error: unknown) => this.#onError(error));
  }

  #deliver(thread: ThreadRecord, deleted: boolean): void {
    for (const watcher of this.#watchers.values()) {
      if (watcher.tenant !== thread.tenant) continue;
      try {
        watcher.deliver(thread, deleted);
      } catch (error) {
        // One broken watcher never stops the store's caller nor the others.
        this.#onError(error);
      }
    }
  }
}

/** `store` with every thread record it creates or changes published to `watch` (after the write). */
export function watchedStore(store: HubStore, watch: ThreadWatch): HubStore {
  return {
    createThread: async (record) => {
      const created = await store.createThread(record);
      watch.publish(created);
      return created;
    },
    getThread: (threadId, tenant) => store.getThread(threadId, tenant),
    updateThread: async (threadId, patch) => {
      const updated = await store.updateThread(threadId, patch);
      if (updated) watch.publish(updated);
      return updated;
    },
    listThreads: (tenant, options) => store.listThreads(tenant, options),
    deleteThread: async (threadId, tenant) => {
      const last = await store.getThread(threadId, tenant);
      const deleted = await store.deleteThread(threadId, tenant);
      if (deleted && last) watch.publish(last, true);
      return deleted;
    },
    listIdleThreads: (updatedBefore, limit) => store.listIdleThreads(updatedBefore, limit),
    createRun: (record) => store.createRun(record),
    getRun: (runId) => store.getRun(runId),
    updateRun: (runId, patch) => store.updateRun(runId, patch),
    deleteRun: (runId) => store.deleteRun(runId),
    listRuns: (threadId, options) => store.listRuns(threadId, options),
    listUnfinishedRuns: () => store.listUnfinishedRuns(),
    countRunsByStatus: () => store.countRunsByStatus(),
    close: () => store.close(),
  };
}
