/** Reserved names of the engine. User nodes and channels may not use them. */

export const START = "__start__";
export const END = "__end__";

/** Pending-write channels with a special meaning (never state channels). */
export const INTERRUPT = "__interrupt__";
export const RESUME = "__resume__";
export const ERROR = "__error__";
/** Marks a task that finished without writing anything. */
export const NO_WRITES = "__no_writes__";
/** Topic channel that carries `Send` packets to the next step. */
export const TASKS = "__pregel_tasks";

/** Task id under which a run-input Command's update/goto writes are saved. */
export const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";

export const PULL = "__pregel_pull";
export const PUSH = "__pregel_push";

export const SPECIAL_WRITE_CHANNELS: ReadonlySet<string> = new Set([INTERRUPT, RESUME, ERROR, NO_WRITES]);

export const DEFAULT_RECURSION_LIMIT = 25;

export function isReservedName(name: string): boolean {
  return name.startsWith("__") || name.includes("|") || name.includes(":");
}
