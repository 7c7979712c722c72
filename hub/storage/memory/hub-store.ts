/**
 * MemoryHubStore: the hub store in a process's memory, for tests and for a
 * hub that need not survive a restart. Values go in and out through a JSON
 * copy, so it behaves like the SQL backends (same JSON semantics, and callers
 * never share an object with the store).
 */
import {
  applyRunPatch,
  applyThreadPatch,
  checkPage,
  cloneJson,
  HubRecordExistsError,
  monotonicClock,
  newRunRecord,
  newThreadRecord,
  UNFINISHED_RUN_STATUSES,
  zeroRunCounts,
} from "../../runs/records.ts";
import type { ListRunsOptions, ListThreadsOptions, NewRun, NewThread, RunPatch, ThreadPatch } from "../../runs/records.ts";
import type { HubStore, RunRecord, RunStatus, ThreadRecord } from "../../runs/store.ts";

/** A record and its insertion number, which breaks createdAt ties like the SQL rowid. */
interface Entry<T> {
  record: T;
  seq: number;
}

/** Newest first: createdAt descending, then insertion descending. */
function newestFirst<T extends { createdAt: string }>(a: Entry<T>, b: Entry<T>): number {
  if (a.record.createdAt !== b.record.createdAt) return a.record.createdAt < b.record.createdAt ? 1 : -1;
  return b.seq - a.seq;
}

function page<T>(items: T[], limit: number | undefined, offset: number | undefined): T[] {
  const start = offset ?? 0;
  return items.slice(start, limit === undefined ? undefined : start + limit);
}

export class MemoryHubStore implements HubStore {
  readonly #threads = new Map<string, Entry<ThreadRecord>>();
  readonly #runs = new Map<string, Entry<RunRecord>>();
  readonly #now = monotonicClock();
  #seq = 0;

  async createThread(record: NewThread): Promise<ThreadRecord> {
    if (this.#threads.has(record.threadId)) throw new HubRecordExistsError("thread", record.threadId);
    const stored = cloneJson(newThreadRecord(record, this.#now()));
    this.#threads.set(stored.threadId, { record: stored, seq: this.#seq++ });
    return cloneJson(stored);
  }

  async getThread(threadId: string, tenant: string): Promise<ThreadRecord | undefined> {
    const entry = this.#threads.get(threadId);
    return entry && entry.record.tenant === tenant ? cloneJson(entry.record) : undefined;
  }

  async updateThread(threadId: string, patch: ThreadPatch): Promise<ThreadRecord | undefined> {
    const entry = this.#threads.get(threadId);
    if (entry === undefined) return undefined;
    entry.record = cloneJson(applyThreadPatch(entry.record, patch, this.#now()));
    return cloneJson(entry.record);
  }

  async listThreads(tenant: string, options: ListThreadsOptions = {}): Promise<ThreadRecord[]> {
    checkPage(options.limit, options.offset);
    const matching = [...this.#threads.values()].filter(
      ({ record }) => record.tenant === tenant && (options.status === undefined || record.status === options.status),
    );
    return page(matching.sort(newestFirst), options.limit, options.offset).map((e) => cloneJson(e.record));
  }

  async listIdleThreads(updatedBefore: string, limit: number): Promise<ThreadRecord[]> {
    checkPage(limit, undefined);
    return [...this.#threads.values()]
      .map((e) => e.record)
      .filter((r) => r.status !== "busy" && r.updatedAt < updatedBefore)
      .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.threadId < b.threadId ? -1 : 1))
      .slice(0, limit)
      .map((r) => cloneJson(r));
  }

  async deleteThread(threadId: string, tenant: string): Promise<boolean> {
    const entry = this.#threads.get(threadId);
    if (entry === undefined || entry.record.tenant !== tenant) return false;
    this.#threads.delete(threadId);
    // A thread's runs go with it; the hub deletes its checkpoints from the checkpointer.
    for (const [runId, run] of this.#runs) {
      if (run.record.threadId === threadId) this.#runs.delete(runId);
    }
    return true;
  }

  async createRun(record: NewRun): Promise<RunRecord> {
    if (this.#runs.has(record.runId)) throw new HubRecordExistsError("run", record.runId);
    const stored = cloneJson(newRunRecord(record, this.#now()));
    this.#runs.set(stored.runId, { record: stored, seq: this.#seq++ });
    return cloneJson(stored);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const entry = this.#runs.get(runId);
    return entry && cloneJson(entry.record);
  }

  async updateRun(runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    const entry = this.#runs.get(runId);
    if (entry === undefined) return undefined;
    entry.record = applyRunPatch(entry.record, patch, this.#now());
    return cloneJson(entry.record);
  }

  async listRuns(threadId: string, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    checkPage(options.limit, undefined);
    const matching = [...this.#runs.values()].filter(
      ({ record }) => record.threadId === threadId && (options.status === undefined || record.status === options.status),
    );
    return page(matching.sort(newestFirst), options.limit, undefined).map((e) => cloneJson(e.record));
  }

  async deleteRun(runId: string): Promise<boolean> {
    return this.#runs.delete(runId);
  }

  async listUnfinishedRuns(): Promise<RunRecord[]> {
    const unfinished = [...this.#runs.values()].filter(({ record }) =>
      UNFINISHED_RUN_STATUSES.includes(record.status),
    );
    // Oldest first, the order a queue of pending runs is taken in.
    return unfinished.sort(newestFirst).reverse().map((e) => cloneJson(e.record));
  }

  async countRunsByStatus(): Promise<Record<RunStatus, number>> {
    const counts = zeroRunCounts();
    for (const { record } of this.#runs.values()) counts[record.status] += 1;
    return counts;
  }

  async close(): Promise<void> {}
}
