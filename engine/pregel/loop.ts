/**
 * The Pregel loop of one graph (root or subgraph): load the checkpoint, apply
 * input or resume, then plan → execute → apply → checkpoint until no task is
 * left, an interrupt or a breakpoint pauses the run, or it fails.
 */
import { setMaxListeners } from "node:events";
import { newCheckpointId } from "../checkpoint/ids.ts";
import type { Checkpoint, CheckpointConfig, CheckpointMetadata, CheckpointTuple } from "../checkpoint/types.ts";
import { ERROR, INTERRUPT, NO_WRITES, NULL_TASK_ID, PULL, PUSH, RESUME, START } from "../constants.ts";
import {
  CheckpointNotFoundError,
  GraphRecursionError,
  PendingInterruptsError,
  RunCancelledError,
  UnknownInputKeyError,
} from "../errors.ts";
import { NEVER_ABORTED, TaskContext, type RunContext } from "../runtime/context.ts";
import type { StreamSink } from "../stream/sink.ts";
import type { CheckpointPayload, Namespace, TaskResultPayload } from "../stream/types.ts";
import type { Interrupt } from "../types.ts";
import {
  applyCommandWrites,
  applyWrites,
  emptyCheckpoint,
  markSeenByBreakpoints,
  planTasks,
  readValues,
  restoreChannels,
  shouldInterrupt,
  snapshotChannels,
  type Channels,
  type PlannedTask,
} from "./algo.ts";
import type { RuntimeGraph, RuntimeNode } from "./graph.ts";
import { groupPendingWrites, pendingInterruptsOf, type TaskRecord } from "./pending.ts";
import { TaskFailure, TaskInterrupted, runTask } from "./runner.ts";
import { commandInputWrites, nodeWrites, updatePayload, type Write } from "./writes.ts";

export interface LoopParams {
  graph: RuntimeGraph;
  run: RunContext;
  sink: StreamSink;
  /** Checkpoint namespace ("" at the root). */
  ns: string;
  nsPath: Namespace;
  parents: Record<string, string>;
  /** State update to start with, or null to continue from the checkpoint. */
  input: Record<string, unknown> | null;
  /** True when the caller answered interrupts (breakpoints do not re-fire). */
  resuming: boolean;
  /** The checkpoint to continue from when the caller already loaded it (resume validation). */
  preloaded?: CheckpointTuple | undefined;
  /**
   * update/goto of a Command run input. With `resuming` they apply before the
   * resumed step runs; without, they are the run's input.
   */
  command?: { update?: unknown; goto?: unknown } | undefined;
  checkpointId?: string | undefined;
  interruptBefore: readonly string[] | "*";
  interruptAfter: readonly string[] | "*";
  recursionLimit: number;
  metadata: Record<string, unknown>;
  /** Runs a subgraph node; supplied by the compiled graph. */
  runSubgraph: (node: RuntimeNode, state: Record<string, unknown>, task: TaskContext) => Promise<unknown>;
}

export interface LoopOutcome {
  status: "completed" | "interrupted";
  values: Record<string, unknown>;
  interrupts: Interrupt[];
  /** The checkpoint the run stopped at (undefined without a checkpointer). */
  config: Required<CheckpointConfig> | undefined;
}

interface StepTask extends PlannedTask {
  node: RuntimeNode;
  record: TaskRecord | undefined;
}

export async function runLoop(p: LoopParams): Promise<LoopOutcome> {
  const { graph, run, sink } = p;
  const saver = run.checkpointer;
  const threadId = run.threadId ?? "";
  const loaded: CheckpointTuple | undefined =
    p.preloaded ??
    (saver && run.threadId !== undefined
      ? await saver.getTuple({ threadId, checkpointNs: p.ns, ...(p.checkpointId ? { checkpointId: p.checkpointId } : {}) })
      : undefined);
  if (p.checkpointId !== undefined && saver && !loaded) throw new CheckpointNotFoundError(threadId, p.checkpointId);
  let checkpoint: Checkpoint = loaded?.checkpoint ?? { ...emptyCheckpoint(), id: "", ts: new Date().toISOString() };
  let config = loaded?.config;
  let step = loaded ? loaded.metadata.step : -2;
  let records = loaded ? groupPendingWrites(loaded.pendingWrites) : new Map<string, TaskRecord>();
  const channels = restoreChannels(graph.specs, checkpoint.channelValues);

  const save = async (source: CheckpointMetadata["source"]): Promise<void> => {
    const parent = checkpoint.id;
    records = new Map();
    if (!saver) {
      // Nothing is stored: only the id matters (task ids derive from it).
      checkpoint.id = newCheckpointId();
      return;
    }
    checkpoint = { ...checkpoint, id: newCheckpointId(), ts: new Date().toISOString(), channelValues: snapshotChannels(channels) };
    const metadata: CheckpointMetadata = { ...p.metadata, source, step, parents: p.parents, runId: run.runId };
    const parentConfig = config;
    config = await saver.put({ threadId, checkpointNs: p.ns, ...(parent ? { checkpointId: parent } : {}) }, checkpoint, metadata);
    if (sink.wants("checkpoints") || sink.wants("debug")) {
      const payload = checkpointPayload(graph, channels, checkpoint, config, parentConfig, metadata, p.ns);
      sink.emit("checkpoints", p.nsPath, payload);
      sink.emit("debug", p.nsPath, { type: "checkpoint", step, timestamp: checkpoint.ts, payload });
    }
  };
  const outcome = (status: LoopOutcome["status"], interrupts: Interrupt[] = []): LoopOutcome => ({
    status,
    values: readValues(channels, graph.publicKeyList),
    interrupts,
    config,
  });

  const refuseWhilePending = () => {
    const pending = [...records.values()].flatMap(pendingInterruptsOf);
    if (pending.length > 0) throw new PendingInterruptsError(pending.map((i) => i.id));
  };
  if (p.input !== null) {
    refuseWhilePending();
    checkInputKeys(graph, p.input);
    const writes: Write[] = [[START, p.input]];
    // New input starts a new pass from START: the tasks still planned here (a
    // pause at a breakpoint, a failed step) are dropped — they count as having
    // seen their triggers, which clear (LangGraph's rule).
    const dropped = loaded ? planTasks(checkpoint, channels, graph.planNodes, step + 1, p.ns).map((t) => ({ ...t, writes: [] })) : [];
    applyWrites(checkpoint, channels, [...dropped, { name: "__input__", path: [PULL, "__input__"], triggers: [], writes }], {
      clearUnwritten: dropped.length > 0,
    });
    step += 1;
    await save("input");
  } else if (p.command && !p.resuming) {
    // Command({ update, goto }) without resume is input (LangGraph's rule): its
    // writes land in an input checkpoint and the run goes on from there. The
    // caller sent the run to its goto target: breakpoints do not stop that step.
    refuseWhilePending();
    const writes = commandInputWrites(p.command.update, p.command.goto, graph.stateKeys, graph.nodeNames);
    applyWrites(checkpoint, channels, [{ name: "__input__", path: [PULL, "__input__"], triggers: [], writes }], { clearUnwritten: false });
    markSeenByBreakpoints(checkpoint);
    step += 1;
    await save("input");
  } else if (!loaded) {
    return outcome("completed");
  } else {
    if (p.command && (p.command.update !== undefined || p.command.goto !== undefined)) {
      const writes = commandInputWrites(p.command.update, p.command.goto, graph.stateKeys, graph.nodeNames);
      // Saved like a task's writes, so they apply again if the step pauses again first.
      if (saver && config) await saver.putWrites(config, writes, NULL_TASK_ID);
      records.set(NULL_TASK_ID, { writes, done: true, interrupts: [], resume: [], error: undefined });
    }
    // A resume's update and goto (this call's, or an earlier partial resume's)
    // apply before the step is planned: the resumed tasks see the update, and
    // the goto target runs in this step (LangGraph's Command(resume, update, goto)).
    applyCommandWrites(checkpoint, channels, records.get(NULL_TASK_ID)?.writes);
    // Continuing from a checkpoint: the state as it is now has been seen by breakpoints.
    markSeenByBreakpoints(checkpoint);
    if (p.checkpointId !== undefined && !p.resuming && records.size > 0) {
      // Time travel to a checkpoint whose step already ran: the steps after it
      // run again in a new branch (LangGraph's replay/fork), instead of
      // replaying the writes they made the first time. The copy is the latest
      // checkpoint, so interrupts raised in the branch can be resumed.
      await save("fork");
    }
  }

  let stepsRun = 0;
  for (;;) {
    const planned = planTasks(checkpoint, channels, graph.planNodes, step + 1, p.ns);
    if (planned.length === 0) return outcome("completed");
    if (stepsRun >= p.recursionLimit) throw new GraphRecursionError(p.recursionLimit);
    const tasks: StepTask[] = planned.map((t) => stepTask(t, graph.nodes.get(t.name) as RuntimeNode, records.get(t.id)));
    const continuing = tasks.some((t) => t.record !== undefined);
    if (!continuing && shouldInterrupt(checkpoint, p.interruptBefore, tasks)) return outcome("interrupted");

    const results = await executeStep(p, tasks, step + 1, checkpoint, channels, config);
    if (results.some((r) => r.paused)) {
      const open = results.flatMap((r) => r.interrupts);
      if (open.length > 0) sink.emit("values", p.nsPath, { __interrupt__: open });
      return { ...outcome("interrupted", open), values: valuesWithFinished(graph, checkpoint, channels, results) };
    }
    step += 1;
    applyWrites(checkpoint, channels, results);
    await save("loop");
    stepsRun += 1;
    sink.emit("values", p.nsPath, readValues(channels, graph.publicKeyList));
    if (shouldInterrupt(checkpoint, p.interruptAfter, tasks)) return outcome("interrupted");
  }
}

/** Run input may only name state channels (callers such as the hub check it before a run exists). */
export function checkInputKeys(graph: RuntimeGraph, input: Record<string, unknown>): void {
  for (const key of Object.keys(input)) {
    if (!graph.stateKeys.has(key)) throw new UnknownInputKeyError(key, [...graph.publicKeyList]);
  }
}

/** Explicit literals, not spreads: one hidden class per kind of object on the hot path. */
function stepTask(t: PlannedTask, node: RuntimeNode, record: TaskRecord | undefined): StepTask {
  const task: StepTask = { id: t.id, name: t.name, path: t.path, triggers: t.triggers, node, record };
  if (t.sendArg !== undefined) task.sendArg = t.sendArg;
  return task;
}

function stepResult(task: StepTask, writes: Write[], interrupts: Interrupt[], paused: boolean): StepResult {
  return { name: task.name, path: task.path, triggers: task.triggers, writes, interrupts, paused };
}

interface StepResult {
  /** The task is waiting: on an interrupt, or on a subgraph's breakpoint. */
  paused: boolean;
  name: string;
  path: PlannedTask["path"];
  triggers: string[];
  writes: Write[];
  interrupts: Interrupt[];
}

/**
 * Runs the tasks of one step concurrently. Finished tasks (from pending writes)
 * are not run again; their writes are replayed to the stream. Each task's
 * writes are saved the moment it finishes.
 */
async function executeStep(
  p: LoopParams,
  tasks: StepTask[],
  step: number,
  checkpoint: Checkpoint,
  channels: Channels,
  config: Required<CheckpointConfig> | undefined,
): Promise<StepResult[]> {
  const { graph, run, sink } = p;
  const saver = run.checkpointer;
  // Siblings share a step signal so one failure stops the others; a lone task
  // (the common case in chains) just uses the run's signal.
  const stepController = tasks.length > 1 ? new AbortController() : undefined;
  const stepSignal = stepController?.signal ?? run.signal;
  // Each running task listens on the step signal; a wide fan-out is not a leak.
  if (stepController) setMaxListeners(tasks.length + 10, stepController.signal);
  const onRunAbort = () => stepController?.abort(run.signal.reason);
  if (stepController && run.signal !== NEVER_ABORTED) {
    if (run.signal.aborted) stepController.abort(run.signal.reason);
    else run.signal.addEventListener("abort", onRunAbort, { once: true });
  }
  const state = readValues(channels, graph.stateKeyList);
  const visible = (t: StepTask) => t.name !== START;
  const persist = async (task: StepTask, writes: Write[]) => {
    if (saver && config) await saver.putWrites(config, writes, task.id);
  };
  const results: StepResult[] = [];
  let failure: unknown;

  // Before anything runs (LangGraph's order): tasks that finished before a
  // pause are not run again — their saved writes are replayed, marked cached
  // so a consumer summing updates counts them once — then tasks whose
  // interrupts are still unanswered report them again, as the first pause did
  // (a partial resume does not re-run them).
  const toRun: StepTask[] = [];
  const waiting: Interrupt[][] = [];
  for (const task of tasks) {
    const record = task.record;
    if (record?.done) {
      results.push(stepResult(task, record.writes, [], false));
      if (visible(task)) sink.emit("updates", p.nsPath, { [task.name]: updatePayload(record.writes, graph.publicKeys), __metadata__: { cached: true } });
      continue;
    }
    const open = record ? pendingInterruptsOf(record) : [];
    if (open.length > 0 && !open.some((i) => run.resumeMap.has(i.id))) {
      results.push(stepResult(task, [], open, true));
      waiting.push(open);
      continue;
    }
    toRun.push(task);
  }
  for (const open of waiting) sink.emit("updates", p.nsPath, { __interrupt__: open });

  const one = async (task: StepTask): Promise<void> => {
    const record = task.record;
    // START reads the run input; a Send task its argument; every other task the state.
    const input = (task.name === START ? channels.get(START)?.get() : task.path[0] === PUSH ? task.sendArg : state) as Record<string, unknown>;
    if (visible(task) && (sink.wants("tasks") || sink.wants("debug"))) {
      // Private channels never leave the engine: a pull task's input is shown as the public state.
      const shown = task.path[0] === PUSH ? input : readValues(channels, graph.publicKeyList);
      const payload = { id: task.id, name: task.name, input: shown, triggers: task.triggers };
      sink.emit("tasks", p.nsPath, payload);
      sink.emit("debug", p.nsPath, { type: "task", step, timestamp: new Date().toISOString(), payload });
    }
    const definition = task.node.definition;
    const options = definition?.options ?? {};
    const taskNs = p.nsPath;
    const makeContext = (signal: AbortSignal, resume: readonly Interrupt[]) =>
      new TaskContext(
        run,
        {
          id: task.id,
          name: task.name,
          step,
          triggers: task.triggers,
          path: task.path,
          checkpointId: checkpoint.id,
          checkpointNs: p.ns,
          ns: taskNs,
          tags: options.tags ?? [],
        },
        sink,
        signal,
        resume,
      );
    const call = async (ctx: TaskContext): Promise<Write[]> => {
      let result: unknown;
      if (!definition) result = input; // START: the run input becomes the state update
      else if (definition.kind === "subgraph") result = await p.runSubgraph(task.node, input, ctx);
      else result = await definition.action(input, ctx.runtime);
      return nodeWrites(
        {
          node: task.name,
          stateKeys: graph.stateKeys,
          nodeNames: graph.nodeNames,
          specs: graph.specs,
          channels,
          state: input,
          edges: task.node.edges,
          runtime: ctx.runtime,
        },
        result,
      );
    };
    try {
      const { result, resume } = await runTask({
        makeContext,
        call,
        node: task.name,
        retry: options.retry,
        timeoutMs: options.timeoutMs,
        signal: stepSignal,
        resume: record?.resume ?? [],
      });
      const writes = result as Write[];
      const saved: Write[] = writes.length > 0 ? [...writes] : [[NO_WRITES, null]];
      if (resume.length > 0) saved.push([RESUME, resume]);
      await persist(task, saved);
      results.push(stepResult(task, writes, [], false));
      if (visible(task)) {
        const update = updatePayload(writes, graph.publicKeys);
        sink.emit("updates", p.nsPath, { [task.name]: update });
        emitTaskResult(p, step, { id: task.id, name: task.name, error: null, result: update, interrupts: [] });
      }
    } catch (error) {
      if (error instanceof TaskInterrupted) {
        const interrupts = error.interrupts;
        const saved: Write[] = [[INTERRUPT, interrupts]];
        if (error.resume.length > 0) saved.push([RESUME, error.resume]);
        await persist(task, saved);
        // A subgraph paused at a static breakpoint pauses this task with no interrupt.
        results.push(stepResult(task, [], interrupts, true));
        // The task result first: a consumer of both modes learns which node asks before the question.
        if (visible(task)) emitTaskResult(p, step, { id: task.id, name: task.name, error: null, result: null, interrupts });
        if (interrupts.length > 0) sink.emit("updates", p.nsPath, { __interrupt__: interrupts });
        return;
      }
      const failed = error instanceof TaskFailure ? error : new TaskFailure(error, []);
      const cause = failed.error;
      const saved: Write[] = [[ERROR, errorMessage(cause)]];
      if (failed.resume.length > 0) saved.push([RESUME, failed.resume]);
      await persist(task, saved).catch(() => {});
      if (visible(task)) emitTaskResult(p, step, { id: task.id, name: task.name, error: errorMessage(cause), result: null, interrupts: [] });
      if (failure === undefined) failure = cause;
      // One failed task fails the step: stop the siblings too.
      stepController?.abort(cause);
    }
  };

  try {
    await Promise.all(toRun.map(one));
  } finally {
    if (stepController) run.signal.removeEventListener("abort", onRunAbort);
  }
  if (run.signal.aborted) throw run.signal.reason instanceof RunCancelledError ? run.signal.reason : new RunCancelledError(run.signal.reason);
  if (failure !== undefined) throw failure;
  // Keep the step's task order deterministic for the interrupt list.
  const order = new Map(tasks.map((t, i) => [`${t.path[0]}:${t.path[1]}`, i]));
  return results.sort((a, b) => (order.get(`${a.path[0]}:${a.path[1]}`) ?? 0) - (order.get(`${b.path[0]}:${b.path[1]}`) ?? 0));
}

/**
 * What a paused step returns: the state with the writes of the step's finished
 * tasks applied to a copy of the channels (seed 004 §8.1.6.3: node_b's
 * `{ age: 12 }` is in the result next to node_a's interrupt). The checkpoint is
 * untouched; those writes stay pending until the step completes.
 */
function valuesWithFinished(graph: RuntimeGraph, checkpoint: Checkpoint, channels: Channels, results: StepResult[]): Record<string, unknown> {
  const finished = results.filter((r) => r.writes.length > 0);
  if (finished.length === 0) return readValues(channels, graph.publicKeyList);
  const copy = restoreChannels(graph.specs, snapshotChannels(channels));
  const versions = { channelVersions: { ...checkpoint.channelVersions }, versionsSeen: structuredClone(checkpoint.versionsSeen) };
  try {
    applyWrites(versions, copy, finished);
  } catch {
    // Conflicting writes fail the step when it completes (after the resume), not the pause.
    return readValues(channels, graph.publicKeyList);
  }
  return readValues(copy, graph.publicKeyList);
}

function emitTaskResult(p: LoopParams, step: number, payload: TaskResultPayload): void {
  if (!p.sink.wants("tasks") && !p.sink.wants("debug")) return;
  p.sink.emit("tasks", p.nsPath, payload);
  p.sink.emit("debug", p.nsPath, { type: "task_result", step, timestamp: new Date().toISOString(), payload });
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function checkpointPayload(
  graph: RuntimeGraph,
  channels: Channels,
  checkpoint: Checkpoint,
  config: Required<CheckpointConfig>,
  parentConfig: Required<CheckpointConfig> | undefined,
  metadata: CheckpointMetadata,
  ns: string,
): CheckpointPayload {
  const next = planTasks(checkpoint, channels, graph.planNodes, metadata.step + 1, ns);
  return {
    config: { ...config },
    parentConfig: parentConfig ? { ...parentConfig } : null,
    values: readValues(channels, graph.publicKeyList),
    metadata: JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>,
    next: next.map((t) => t.name),
    tasks: next.map((t) => ({ id: t.id, name: t.name, interrupts: [], error: null, result: null })),
  };
}
