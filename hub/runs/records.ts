/**
 * What both hub store backends must do identically: the run status table,
 * the status transitions of updateRun/updateThread, the clock, JSON encoding
 * and paging checks. Keeping them here, as pure functions, leaves each
 * backend with storage only. index.ts exports the status helpers and the error.
 */
import type { HubStore, RunRecord, RunStatus, ThreadRecord } from "./store.ts";

export type NewThread = Parameters<HubStore["createThread"]>[0];
export type ThreadPatch = Parameters<HubStore["updateThread"]>[1];
export type ListThreadsOptions = NonNullable<Parameters<HubStore["listThreads"]>[1]>;
export type NewRun = Parameters<HubStore["createRun"]>[0];
export type RunPatch = Parameters<HubStore["updateRun"]>[1];
export type ListRunsOptions = NonNullable<Parameters<HubStore["listRuns"]>[1]>;

/** Whether a run status is final; a Record, so a new RunStatus breaks the build here. */
const RUN_STATUS_IS_FINAL = {
  pending: false,
  running: false,
  completed: true,
  interrupted: true,
  failed: true,
  cancelled: true,
  abandoned: true,
} as const satisfies Record<RunStatus, boolean>;

/** Every run status, in lifecycle order. */
export const RUN_STATUSES = Object.keys(RUN_STATUS_IS_FINAL) as readonly RunStatus[];

/** Statuses of runs a crashed process may have left behind (see listUnfinishedRuns). */
export const UNFINISHED_RUN_STATUSES = RUN_STATUSES.filter((s) => !RUN_STATUS_IS_FINAL[s]);

export function isFinalRunStatus(status: RunStatus): boolean {
  return RUN_STATUS_IS_FINAL[status];
}

/** A record's id is already taken (thread ids are unique across tenants, run ids globally). */
export class HubRecordExistsError extends Error {
  readonly code = "HUB_RECORD_EXISTS";
  override readonly name = "HubRecordExistsError";
  readonly kind: "thread" | "run";
  readonly id: string;

  constructor(kind: "thread" | "run", id: string) {
    super(`a ${kind} with id ${JSON.stringify(id)} already exists`);
    this.kind = kind;
    this.id = id;
  }
}

/**
 * A clock of ISO timestamps that strictly increase within one store: two
 * writes in the same millisecond (or a wall clock stepping back) would
 * otherwise leave updatedAt unchanged and make "newest first" a tie.
 * Date.now is looked up on each call so fake timers in tests apply.
 */
/**
 * Timestamps that never repeat nor go back, within one store instance and
 * past `floor` (epoch ms): the latest time a previous instance stamped on the
 * same data. Many writes in one millisecond run the clock ahead of Date.now(),
 * so a store reopened soon after must start past what is already stored.
 */
export function monotonicClock(floor = -Infinity): () => string {
  let last = floor;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last).toISOString();
  };
}

/** JSON text of a column; undefined (a resume's missing input) is stored as null. */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

export function decodeJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** A deep copy with exactly the JSON semantics of the SQL backends. */
export function cloneJson<T>(value: T): T {
  return decodeJson(encodeJson(value)) as T;
}

/** Rejects what SQL LIMIT/OFFSET would read differently (negative means "no limit" there). */
export function checkPage(limit: number | undefined, offset: number | undefined): void {
  for (const [name, value] of [["limit", limit], ["offset", offset]] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
    }
  }
}

/** Picks the fields the port defines, so extra properties on the argument are not stored. */
export function newThreadRecord(record: NewThread, now: string): ThreadRecord {
  return {
    threadId: record.threadId,
    tenant: record.tenant,
    assistantId: record.assistantId,
    status: record.status,
    metadata: record.metadata,
    createdAt: now,
    updatedAt: now,
  };
}

export function newRunRecord(record: NewRun, now: string): RunRecord {
  return {
    runId: record.runId,
    threadId: record.threadId,
    tenant: record.tenant,
    assistantId: record.assistantId,
    status: record.status,
    startedBy: record.startedBy,
    multitaskStrategy: record.multitaskStrategy,
    input: record.input === undefined ? null : record.input,
    error: null,
    nodeId: record.nodeId ?? null,
    createdAt: now,
    startedAt: record.status === "running" ? now : null,
    endedAt: isFinalRunStatus(record.status) ? now : null,
  };
}

/** An omitted field keeps its value; metadata is replaced, not merged. Always bumps updatedAt. */
export function applyThreadPatch(thread: ThreadRecord, patch: ThreadPatch, now: string): ThreadRecord {
  return {
    ...thread,
    status: patch.status ?? thread.status,
    assistantId: patch.assistantId === undefined ? thread.assistantId : patch.assistantId,
    metadata: patch.metadata ?? thread.metadata,
    updatedAt: now,
  };
}

/**
 * startedAt is the first time the run was "running" and endedAt the first
 * time it reached a final status, so a repeated update does not move them.
 * endedAt is null exactly while the status is not final. An omitted error
 * is kept; null clears it. An omitted nodeId is kept (the last node that ran it).
 */
export function applyRunPatch(run: RunRecord, patch: RunPatch, now: string): RunRecord {
  return {
    ...run,
    status: patch.status,
    error: patch.error === undefined ? run.error : patch.error,
    nodeId: patch.nodeId === undefined ? run.nodeId : patch.nodeId,
    startedAt: patch.status === "running" ? (run.startedAt ?? now) : run.startedAt,
    endedAt: isFinalRunStatus(patch.status) ? (run.endedAt ?? now) : null,
  };
}

export function zeroRunCounts(): Record<RunStatus, number> {
  return Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>;
}
