/**
 * How LangGraph routes reach a thread and its state: through the run
 * manager's tenant-scoped lookup (another tenant's thread is a 404), with the
 * role the action needs; the state is read from the assistant's graph that
 * last ran on the thread.
 */
import type { StateSnapshot } from "../../../engine/index.ts";
import type { Principal, ThreadAction } from "../../auth/index.ts";
import { SwitchboardError } from "../../protocol/index.ts";
import type { Assistant } from "../../runs/assistants.ts";
import type { ThreadRecord } from "../../runs/index.ts";
import type { HubServices } from "../../services.ts";
import type { AppHooks } from "../hooks.ts";
import { requirePermission, type LgContext } from "./http.ts";
import type { LgStreamMode } from "./stream-format.ts";

export type { LgContext };

/** What every LangGraph route module gets. */
export interface LgDeps {
  services: HubServices;
  hooks: AppHooks;
  /** Stream settings of recent runs, so a join without `stream_mode` streams what the run was started with. */
  streamSettings: StreamSettings;
}

export interface StreamSetting {
  modes: LgStreamMode[];
  subgraphs: boolean;
}

/** A bounded memory of runs' stream settings (oldest forgotten first). */
export class StreamSettings {
  readonly #byRun = new Map<string, StreamSetting>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  remember(runId: string, setting: StreamSetting): void {
    this.#byRun.delete(runId);
    this.#byRun.set(runId, setting);
    for (const oldest of this.#byRun.keys()) {
      if (this.#byRun.size <= this.#max) break;
      this.#byRun.delete(oldest);
    }
  }

  get(runId: string): StreamSetting | undefined {
    return this.#byRun.get(runId);
  }
}

export async function threadFor(services: HubServices, principal: Principal, threadId: string, action: ThreadAction, create = false): Promise<ThreadRecord> {
  requirePermission(principal, action);
  return services.runs.ensureThread(threadId, principal, create);
}

export function assistantOf(services: HubServices, thread: ThreadRecord): Assistant | undefined {
  return thread.assistantId === null ? undefined : services.assistants.get(thread.assistantId);
}

export function requireAssistant(services: HubServices, id: string): Assistant {
  const assistant = services.assistants.get(id);
  if (!assistant) throw new SwitchboardError("not_found", `no assistant "${id}"`);
  return assistant;
}

/**
 * The thread's state (latest, or at a checkpoint); undefined before its first
 * run. `assistantId` when the caller knows better than a record read before a run began.
 */
export async function latestState(services: HubServices, thread: ThreadRecord, checkpointId?: string, assistantId?: string): Promise<StateSnapshot | undefined> {
  const assistant = assistantId === undefined ? assistantOf(services, thread) : services.assistants.get(assistantId);
  if (!assistant) return undefined;
  const state = await assistant.graph.getState(thread.threadId, checkpointId === undefined ? {} : { checkpointId });
  if (checkpointId !== undefined && state.config === undefined) throw new SwitchboardError("no_such_checkpoint", `thread ${thread.threadId} has no checkpoint ${checkpointId}`);
  return state;
}
