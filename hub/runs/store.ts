/**
 * The hub store port: durable records of threads and runs (checkpoints live in
 * the engine's checkpointer). Adapters in hub/storage (memory, SQLite, Postgres),
 * all held to one conformance suite (test/hub/storage/conformance/hub-store.ts).
 */

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";
export type RunStatus = "pending" | "running" | "completed" | "interrupted" | "failed" | "cancelled" | "abandoned";
export type MultitaskStrategy = "reject" | "enqueue" | "interrupt" | "rollback";

export interface ThreadRecord {
  threadId: string;
  tenant: string;
  /** Assistant the thread was created for or last ran (null until the first run). */
  assistantId: string | null;
  status: ThreadStatus;
  /** JSON metadata given at creation. */
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface RunRecord {
  runId: string;
  threadId: string;
  tenant: string;
  assistantId: string;
  status: RunStatus;
  /** `sub` of the principal that started the run. */
  startedBy: string;
  multitaskStrategy: MultitaskStrategy;
  /** JSON input of the run (null for a resume). */
  input: unknown;
  error: string | null;
  /**
   * The node that runs the run, or ran it last (kept after it ends; a takeover
   * names the new node). null while it is queued and has not run anywhere.
   */
  nodeId: string | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

export interface HubStore {
  createThread(record: Omit<ThreadRecord, "createdAt" | "updatedAt">): Promise<ThreadRecord>;
  /** undefined when missing or in another tenant. */
  getThread(threadId: string, tenant: string): Promise<ThreadRecord | undefined>;
  updateThread(threadId: string, patch: Partial<Pick<ThreadRecord, "status" | "assistantId" | "metadata">>): Promise<ThreadRecord | undefined>;
  listThreads(tenant: string, options?: { status?: ThreadStatus; limit?: number; offset?: number }): Promise<ThreadRecord[]>;
  deleteThread(threadId: string, tenant: string): Promise<boolean>;
  /** Threads of every tenant last updated before `updatedBefore` and not busy, least recently updated first (the retention sweep). */
  listIdleThreads(updatedBefore: string, limit: number): Promise<ThreadRecord[]>;

  /** `nodeId` may be omitted (null: not run anywhere yet). */
  createRun(record: Omit<RunRecord, "createdAt" | "startedAt" | "endedAt" | "error" | "nodeId"> & { nodeId?: string | null }): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Sets status; stamps startedAt on "running" and endedAt on a final status. An omitted `nodeId` is kept. */
  updateRun(runId: string, patch: { status: RunStatus; error?: string | null; nodeId?: string }): Promise<RunRecord | undefined>;
  listRuns(threadId: string, options?: { status?: RunStatus; limit?: number }): Promise<RunRecord[]>;
  /** Removes one run's record; false when there is none. */
  deleteRun(runId: string): Promise<boolean>;
  /** Runs left "pending"/"running" by a previous process (marked "abandoned" by the hub at start). */
  listUnfinishedRuns(): Promise<RunRecord[]>;
  countRunsByStatus(): Promise<Record<RunStatus, number>>;
  close(): Promise<void>;
}
