/** hub/runs: run admission (new run, resume, multitask strategies), execution and records. */
export { RunManager } from "./run-manager.ts";
export type { RunManagerOptions, StartRequest } from "./run-manager.ts";
export { PROJECTED_MODES, RunAbort } from "./execute.ts";
export { answersFromRunInput, resumeMapOf, toSwitchboardError } from "./answers.ts";
export type { Answer } from "./answers.ts";
