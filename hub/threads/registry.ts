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
 */
import type { ProtocolEvent } from "../protocol/index.ts";
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
}

export class ThreadLogs {
  readonly #logs = new Map<string, ThreadLog>();
  readonly #loading = new Map<string, Promise<ThreadLog>>();
  readonly #options: ThreadLogsOptions;

  constructor(options: ThreadLogsOptions = {}) {
    this.#options = options;
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
      if (threadId !== keep && log.subscriberCount === 0 && !this.#options.inUse?.(threadId)) this.#logs.delete(threadId);
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

  /** Forgets a deleted thread's log (its subscribers are the caller's to close). */
  drop(threadId: string): void {
    this.#logs.delete(threadId);
  }

  get size(): number {
    return this.#logs.size;
  }
}
