/** hub/runs: run admission (new run, resume, multitask strategies), execution and records. */
export { RunManager } from "./run-manager.ts";
export type { RunInfo, RunManagerOptions, RunObserver, StartRequest } from "./run-manager.ts";
export type { ExecutionResult } from "./execute.ts";
export { PROJECTED_MODES, RunAbort } from "./execute.ts";
export { answersFromRunInput, resumeMapOf, toSwitchboardError } from "./answers.ts";
export type { Answer } from "./answers.ts";
