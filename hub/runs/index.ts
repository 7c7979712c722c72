/**
 * hub/runs: run admission (new run, resume, multitask strategies), execution,
 * the projection of engine parts into protocol events, the assistants served,
 * the hub store port (thread and run records) with its shared rules, and the
 * watch of thread records as they change.
 */
export { ASSISTANT_ID_KEY, GRAPH_ID_KEY, RunManager } from "./run-manager.ts";
export type { RunInfo, RunManagerOptions, RunObserver, StartRequest } from "./run-manager.ts";
export type { ExecutionResult } from "./execute.ts";
export { PROJECTED_MODES, RunAbort } from "./execute.ts";
export { answersFromRunInput, gotoList, resumeMapOf, toSwitchboardError } from "./answers.ts";
export type { Answer, GotoTarget, ResumeEdits, ResumeOrder } from "./answers.ts";
export type { HubStore, MultitaskStrategy, RunRecord, RunStatus, ThreadRecord, ThreadStatus } from "./store.ts";
export { HubRecordExistsError, isFinalRunStatus, RUN_STATUSES } from "./records.ts";
export { ThreadWatch, threadRecordJson, threadStatusEvent, watchedStore } from "./thread-watch.ts";
export type { ThreadWatcher } from "./thread-watch.ts";
export { LeaseLostError } from "./leases.ts";
export type { AcquireResult, LeaseHolder, RunLeases, TakenLease } from "./leases.ts";
export { RunControl } from "./control.ts";
