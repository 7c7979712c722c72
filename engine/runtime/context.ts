/**
 * Per-run and per-task context. A TaskContext is the scope (runtime/scope.ts)
 * around each node call: interrupt() finds its scratchpad there, and chat
 * models and tools find their stream observers there (runtime/hooks.ts).
 */
import type { Checkpointer } from "../checkpoint/types.ts";
import { GraphInterrupt, InterruptOutsideTaskError, MissingCheckpointerError } from "../errors.ts";
import { interruptId } from "../pregel/ids.ts";
import type { StreamSink } from "../stream/sink.ts";
import type { Namespace } from "../stream/types.ts";
import type { Interrupt, Runtime } from "../types.ts";
import {
  currentHookHost,
  type ModelCallInfo,
  type ModelStreamObserver,
  type RunHookHost,
  type ToolCallInfo,
  type ToolCallObserver,
} from "./hooks.ts";
import { assertJsonSerializable } from "./json.ts";

/** The signal of a run nobody can cancel (invoke without a signal): no listeners needed. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Shared by the root graph and every subgraph of one run. */
export interface RunContext {
  runId: string;
  threadId: string | undefined;
  checkpointer: Checkpointer | undefined;
  /** Answers of this resume, by interrupt id; consumed ids are recorded. */
  resumeMap: ReadonlyMap<string, unknown>;
  consumed: Set<string>;
  signal: AbortSignal;
  context: unknown;
  tags: readonly string[];
  /** The caller's limit, for the root graph and every subgraph (LangGraph passes it down too). */
  recursionLimit: number;
}

export interface TaskIdentity {
  id: string;
  name: string;
  step: number;
  triggers: readonly string[];
  path: ReadonlyArray<string | number>;
  checkpointId: string;
  checkpointNs: string;
  ns: Namespace;
  tags: readonly string[];
}

export class TaskContext implements RunHookHost {
  /** interrupt() calls so far in this execution of the task. */
  #counter = 0;
  /** Subgraphs invoked from this execution of the node function so far. */
  #subgraphCalls = 0;
  /** Answers this task has consumed, in interrupt() order (persisted as RESUME). */
  readonly resume: Interrupt[];
  /** Set when interrupt() raised; used to detect a swallowed interrupt. */
  raised: GraphInterrupt | undefined;
  readonly runtime: Runtime;

  constructor(
    readonly run: RunContext,
    readonly task: TaskIdentity,
    readonly sink: StreamSink,
    readonly signal: AbortSignal,
    resume: readonly Interrupt[],
  ) {
    this.resume = [...resume];
    const ctx = this;
    this.runtime = {
      threadId: run.threadId,
      runId: run.runId,
      node: task.name,
      step: task.step,
      taskId: task.id,
      checkpointNs: task.checkpointNs,
      signal,
      context: run.context,
      interrupt: <T>(value: unknown) => ctx.interrupt(value) as T,
      write: (value: unknown) => ctx.sink.emit("custom", task.ns, value),
    };
  }

  interrupt(value: unknown): unknown {
    if (!this.run.checkpointer || this.run.threadId === undefined) throw new MissingCheckpointerError("interrupt()");
    assertJsonSerializable(value);
    const index = this.#counter++;
    const previous = this.resume[index];
    if (previous !== undefined) return previous.value;
    const id = interruptId(this.run.threadId, this.task.checkpointId, this.task.checkpointNs, this.task.id, index);
    if (this.run.resumeMap.has(id)) {
      const answer = this.run.resumeMap.get(id);
      this.resume.push({ id, value: answer });
      this.run.consumed.add(id);
      return answer;
    }
    const raised = new GraphInterrupt([{ id, value: value === undefined ? null : value }]);
    this.raised = raised;
    throw raised;
  }

  /**
   * The namespace segment of the next subgraph this node function invokes:
   * the k-th call of an execution gets the same one every time the node runs
   * again (it replays from its first line), so a resumed call finds its checkpoints.
   */
  nextSubgraphSegment(): string {
    const k = this.#subgraphCalls++;
    const segment = `${this.task.name}:${this.task.id}`;
    return k === 0 ? segment : `${segment}:${k}`;
  }

  observeModelCall(info: ModelCallInfo): ModelStreamObserver | undefined {
    if (!this.sink.wants("messages")) return undefined;
    const tags = [...this.run.tags, ...this.task.tags, ...(info.tags ?? [])];
    if (tags.includes("nostream")) return undefined;
    const metadata = {
      threadId: this.run.threadId ?? "",
      runId: this.run.runId,
      node: this.task.name,
      step: this.task.step,
      triggers: [...this.task.triggers],
      path: [...this.task.path],
      checkpointNs: this.task.checkpointNs,
      taskId: this.task.id,
      tags,
      ...(info.model !== undefined ? { model: info.model } : {}),
    };
    const emit = this.sink.emitter("messages", this.task.ns);
    return { onChunk: (chunk) => emit([chunk, metadata]) };
  }

  observeToolCall(info: ToolCallInfo): ToolCallObserver | undefined {
    if (!this.sink.wants("tools")) return undefined;
    const { toolCallId, name } = info;
    const ns = this.task.ns;
    this.sink.emit("tools", ns, { event: "tool-started", toolCallId, name, input: info.input });
    return {
      onOutputDelta: (delta) => this.sink.emit("tools", ns, { event: "tool-output-delta", toolCallId, name, delta }),
      onFinished: (output) => this.sink.emit("tools", ns, { event: "tool-finished", toolCallId, name, output }),
      onError: (message) => this.sink.emit("tools", ns, { event: "tool-error", toolCallId, name, message }),
    };
  }
}

export function currentTask(): TaskContext | undefined {
  const store = currentHookHost();
  return store instanceof TaskContext ? store : undefined;
}

/**
 * Pauses the graph and hands `value` (JSON) to the caller. On the first run it
 * throws; when the run is resumed with an answer for this interrupt, the node
 * runs again from its first line and this call returns the answer.
 */
export function interrupt<T = unknown>(value: unknown): T {
  const task = currentTask();
  if (!task) throw new InterruptOutsideTaskError();
  return task.interrupt(value) as T;
}

/** The custom stream writer of the current node (a no-op outside a run). */
export function getWriter(): (value: unknown) => void {
  const task = currentTask();
  return task ? task.runtime.write : () => {};
}
