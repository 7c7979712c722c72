/**
 * Thread records as they change: a fan-out of every created or updated
 * thread record to the watchers of its tenant (the web app's live threads
 * list, `threads.subscribe`), and the HubStore decorator that feeds it, so
 * every path that writes a thread record — runs starting and ending, a
 * restart's recovery, POST /threads — is seen, whichever adapter stores it.
 * Transport-agnostic: each watcher is a `deliver` callback.
 */
import { nanoid } from "nanoid";
import type { EventOf, ThreadRecordJson } from "../protocol/index.ts";
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

/** The `thread.status` event of a record: not a thread-log event (no `seq`), sent to `threads.subscribe` watchers. */
export function threadStatusEvent(thread: ThreadRecord, now: number = Date.now()): EventOf<"thread.status"> {
  return { type: "event", thread_id: thread.threadId, method: "thread.status", params: { namespace: [], timestamp: now, data: threadRecordJson(thread) } };
}

export interface ThreadWatcher {
  tenant: string;
  deliver(thread: ThreadRecord): void;
}

export class ThreadWatch {
  readonly #watchers = new Map<string, ThreadWatcher>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void = () => undefined) {
    this.#onError = onError;
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

  publish(thread: ThreadRecord): void {
    for (const watcher of this.#watchers.values()) {
      if (watcher.tenant !== thread.tenant) continue;
      try {
        watcher.deliver(thread);
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
    deleteThread: (threadId, tenant) => store.deleteThread(threadId, tenant),
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
