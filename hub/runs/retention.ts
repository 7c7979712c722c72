/**
 * Retention: with `retention.threadTtlMs` set, a sweep every
 * `sweepIntervalMs` deletes the threads no one has touched for that long
 * (last update older than the TTL, any status but busy), each with
 * everything of it, as `DELETE /threads/:id` does. A batch at a time, oldest
 * first; a failure is logged and the next sweep tries again.
 */
import type { HubStore, ThreadRecord } from "./store.ts";

export interface RetentionConfig {
  /** Threads idle (not updated) for longer than this are deleted (default: kept). */
  threadTtlMs?: number;
  /** How often to look (default: a tenth of the TTL, between 1 s and 1 h; for the review rows below, an hour). */
  sweepIntervalMs?: number;
  /** Settled webhook deliveries (delivered or failed) older than this are deleted (default 30 days; hub/review/retention.ts). */
  webhookDeliveriesMs?: number;
}

export const SWEEP_BATCH = 100;

export interface ThreadSweeperOptions {
  store: HubStore;
  config: RetentionConfig & { threadTtlMs: number };
  /** Deletes the thread with everything of it. */
  deleteThread: (thread: ThreadRecord) => Promise<void>;
  onError: (error: unknown, context: string) => void;
  clock?: () => number;
}

export class ThreadSweeper {
  readonly #o: ThreadSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | undefined;

  constructor(options: ThreadSweeperOptions) {
    this.#o = options;
  }

  get intervalMs(): number {
    const { threadTtlMs, sweepIntervalMs } = this.#o.config;
    return sweepIntervalMs ?? Math.min(Math.max(Math.round(threadTtlMs / 10), 1_000), 3_600_000);
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.#timer.unref();
  }

  /** One sweep (several batches until none is left); resolves with how many threads went. */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#run().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #run(): Promise<number> {
    const now = (this.#o.clock ?? Date.now)();
    const before = new Date(now - this.#o.config.threadTtlMs).toISOString();
    let deleted = 0;
    try {
      for (;;) {
        const batch = await this.#o.store.listIdleThreads(before, SWEEP_BATCH);
        let progress = 0;
        for (const thread of batch) {
          try {
            await this.#o.deleteThread(thread);
            deleted++;
            progress++;
          } catch (error) {
            this.#o.onError(error, `deleting idle thread ${thread.threadId}`);
          }
        }
        if (batch.length < SWEEP_BATCH || progress === 0) break;
      }
    } catch (error) {
      this.#o.onError(error, "sweeping idle threads");
    }
    return deleted;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }
}
