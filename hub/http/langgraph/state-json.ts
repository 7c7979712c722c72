/**
 * Thread state as the LangGraph API returns it (`ThreadState` of
 * `@langchain/langgraph-sdk`): values, next, tasks with their interrupts,
 * the checkpoint and its parent as `{ thread_id, checkpoint_ns,
 * checkpoint_id, checkpoint_map }`, metadata and creation time. Also the
 * thread object's `interrupts` (a record keyed by task id) and the payload
 * of the `checkpoints` stream mode, all from one engine StateSnapshot.
 */
import type { StateSnapshot } from "../../../engine/index.ts";

export interface CheckpointJson {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

export interface InterruptJson {
  id: string;
  value: unknown;
}

export interface TaskJson {
  id: string;
  name: string;
  path: Array<string | number>;
  error: string | null;
  interrupts: InterruptJson[];
  checkpoint: CheckpointJson | null;
  state: null;
  result: Record<string, unknown> | null;
}

export interface StateJson {
  values: Record<string, unknown>;
  next: string[];
  tasks: TaskJson[];
  checkpoint: CheckpointJson;
  parent_checkpoint: CheckpointJson | null;
  metadata: Record<string, unknown> | null;
  created_at: string | null;
  interrupts: InterruptJson[];
}

export function checkpointJson(threadId: string, config: { checkpointNs: string; checkpointId: string } | undefined): CheckpointJson {
  return { thread_id: threadId, checkpoint_ns: config?.checkpointNs ?? "", checkpoint_id: config?.checkpointId ?? null, checkpoint_map: null };
}

const interruptJson = (i: { id: string; value: unknown }): InterruptJson => ({ id: i.id, value: i.value });

export function stateJson(threadId: string, s: StateSnapshot): StateJson {
  return {
    values: s.values,
    next: s.next,
    tasks: s.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      path: t.path,
      error: t.error,
      interrupts: t.interrupts.map(interruptJson),
      checkpoint: null,
      state: null,
      result: t.result,
    })),
    checkpoint: checkpointJson(threadId, s.config),
    parent_checkpoint: s.parentConfig ? checkpointJson(threadId, s.parentConfig) : null,
    metadata: s.metadata ? { ...s.metadata } : null,
    created_at: s.createdAt ?? null,
    interrupts: s.interrupts.map(interruptJson),
  };
}

/**
 * The thread object's `interrupts`: pending interrupts by the id of the task
 * that raised them (an answered task's interrupts are history, not pending).
 */
export function interruptsByTask(s: StateSnapshot): Record<string, InterruptJson[]> {
  const pending = new Set(s.interrupts.map((i) => i.id));
  const out: Record<string, InterruptJson[]> = {};
  for (const task of s.tasks) {
    const open = task.interrupts.filter((i) => pending.has(i.id));
    if (open.length > 0) out[task.id] = open.map(interruptJson);
  }
  return out;
}

/** `config` as LangGraph writes it in checkpoint payloads. */
export function configJson(threadId: string, config: { checkpointNs: string; checkpointId: string } | undefined): Record<string, unknown> | null {
  if (!config) return null;
  return { configurable: { thread_id: threadId, checkpoint_ns: config.checkpointNs, checkpoint_id: config.checkpointId } };
}

/** The `checkpoints` stream mode's payload (also the `debug` mode's checkpoint payload). */
export function checkpointEventJson(threadId: string, s: StateSnapshot): Record<string, unknown> {
  const state = stateJson(threadId, s);
  return {
    config: configJson(threadId, s.config),
    parent_config: configJson(threadId, s.parentConfig),
    values: state.values,
    metadata: state.metadata,
    next: state.next,
    tasks: state.tasks.map((t) => ({ id: t.id, name: t.name, interrupts: t.interrupts, ...(t.error === null ? {} : { error: t.error }), ...(t.result === null ? {} : { result: t.result }) })),
    checkpoint: state.checkpoint,
    parent_checkpoint: state.parent_checkpoint,
  };
}
