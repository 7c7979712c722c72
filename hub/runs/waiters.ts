/**
 * Who waits for a run to reach a final status (`runs.join`, `runs.wait`):
 * the run manager notifies here each time it records one.
 */
import { isFinalRunStatus } from "./records.ts";
import type { RunRecord } from "./store.ts";

export class RunWaiters {
  readonly #byRun = new Map<string, Set<(run: RunRecord) => void>>();

  /**
   * The run once final, read with `read` (the store); undefined for an unknown
   * run or when `signal` aborts. Resolves at once for a run that already ended.
   */
  async wait(runId: string, read: () => Promise<RunRecord | undefined>, signal?: AbortSignal): Promise<RunRecord | undefined> {
    let resolve: (run: RunRecord | undefined) => void = () => {};
    const settled = new Promise<RunRecord | undefined>((r) => (resolve = r));
    const waiters = this.#byRun.get(runId) ?? new Set();
    this.#byRun.set(runId, waiters);
    // Registered before the store is read: an end between the two is not missed.
    const waiter = (run: RunRecord): void => resolve(run);
    waiters.add(waiter);
    const stop = (): void => resolve(undefined);
    signal?.addEventListener("abort", stop, { once: true });
    try {
      const current = await read();
      if (!current || isFinalRunStatus(current.status)) return current;
      return await settled;
    } finally {
      signal?.removeEventListener("abort", stop);
      waiters.delete(waiter);
      if (waiters.size === 0 && this.#byRun.get(runId) === waiters) this.#byRun.delete(runId);
    }
  }

  notify(run: RunRecord): void {
    if (!isFinalRunStatus(run.status)) return;
    for (const waiter of [...(this.#byRun.get(run.runId) ?? [])]) waiter(run);
  }

  /** Runs someone waits for (tests check none are left). */
  get size(): number {
    return this.#byRun.size;
  }
}
