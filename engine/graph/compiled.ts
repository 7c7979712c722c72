/**
 * A compiled graph: invoke / stream a run, read and edit thread state. Holds
 * one-run-per-thread locks and strict resume validation; the superstep work
 * itself is in pregel/.
 */
import { nanoid } from "nanoid";
import type { Checkpointer, CheckpointConfig, CheckpointMetadata, CheckpointTuple } from "../checkpoint/types.ts";
import { DEFAULT_RECURSION_LIMIT } from "../constants.ts";
import {
  GraphInterrupt,
  InvalidCommandError,
  MissingCheckpointerError,
  MissingThreadIdError,
  RunCancelledError,
  ThreadBusyError,
} from "../errors.ts";
import { NEVER_ABORTED, currentTask, type RunContext, type TaskContext } from "../runtime/context.ts";
import { StreamQueue, StreamSink } from "../stream/sink.ts";
import { STREAM_MODES, type StreamMode, type StreamPart } from "../stream/types.ts";
import { Command, type Interrupt, type RunOptions, type StateOf, type StateSchema, type StreamOptions, type UpdateOf } from "../types.ts";
import { buildRuntimeGraph, type RuntimeGraph, type RuntimeNode } from "../pregel/graph.ts";
import { checkInputKeys, runLoop, type LoopOutcome } from "../pregel/loop.ts";
import { resolveResume } from "../pregel/resume.ts";
import { snapshotOf, updateThreadState, type StateSnapshot } from "../pregel/state.ts";
import type { CompileOptions, GraphDefinition, SubgraphNode } from "../pregel/definition.ts";
import { drawGraph, stateJsonSchema, subgraphsOf, type DrawableGraph } from "./describe.ts";

export type RunOutput<S extends StateSchema> = StateOf<S> & { __interrupt__?: Interrupt[] };

export interface HistoryOptions {
  limit?: number;
  /** Only checkpoints older than this checkpoint id. */
  before?: string;
  /** Metadata fields that must match, e.g. { source: "loop" }. */
  filter?: Record<string, unknown>;
}

const busyThreads = new WeakMap<Checkpointer, Set<string>>();

export class CompiledStateGraph<S extends StateSchema, Context = unknown> implements SubgraphNode {
  readonly isCompiledGraph = true;
  readonly name: string;
  readonly checkpointer: Checkpointer | undefined;
  readonly #runtime: RuntimeGraph;
  readonly #definition: GraphDefinition;

  constructor(definition: GraphDefinition, options: CompileOptions) {
    this.name = definition.name;
    this.checkpointer = options.checkpointer;
    this.#definition = definition;
    this.#runtime = buildRuntimeGraph(definition, options);
  }

  /** Nodes and edges, as LangGraph's drawable graph; `xray` expands subgraph nodes (true, or a depth). */
  getGraph(options: { xray?: boolean | number } = {}): DrawableGraph {
    return drawGraph(this.#definition, options.xray ?? false);
  }

  /** The subgraph nodes' graphs by node name; `recurse` adds theirs as `node|inner`. */
  getSubgraphs(options: { recurse?: boolean } = {}): Map<string, CompiledStateGraph<StateSchema>> {
    const out = new Map<string, CompiledStateGraph<StateSchema>>();
    for (const [name, graph] of subgraphsOf(this.#definition)) {
      if (!(graph instanceof CompiledStateGraph)) continue;
      out.set(name, graph);
      if (options.recurse) for (const [inner, sub] of graph.getSubgraphs(options)) out.set(`${name}|${inner}`, sub);
    }
    return out;
  }

  /** JSON Schema of the state (public channels); input and output are the same channels. */
  stateSchema(): Record<string, unknown> {
    return stateJsonSchema(this.#definition, this.name);
  }

  /** Node names (without START). */
  get nodes(): string[] {
    return [...this.#runtime.nodeNames];
  }

  /**
   * Runs to the end or to the next pause and returns the state (with
   * `__interrupt__` when paused). Called inside a node of another graph
   * without a `threadId`, it runs as a subgraph of that node's task.
   */
  async invoke(input: UpdateOf<S> | Command | null | undefined, options: RunOptions<Context> = {}): Promise<RunOutput<S>> {
    const task = options.threadId === undefined ? currentTask() : undefined;
    if (task) return (await this.#invokeInTask(input, options, task)) as RunOutput<S>;
    const outcome = await this.#execute(input, options, StreamSink.silent, options.signal);
    return outputOf(outcome) as RunOutput<S>;
  }

  /**
   * invoke() from inside a node (seed 002's wrapper for a subgraph with its
   * own state schema): the graph runs under the task's run — its checkpointer,
   * thread, answers, signal, recursion limit and stream — in a namespace of
   * the task, like a subgraph node. Its interrupt pauses the task (and so
   * bubbles to the root); when the node runs again after the answer, the
   * same call continues from its checkpoints. Its own checkpointer, if any,
   * is not used (as for a subgraph node).
   */
  async #invokeInTask(input: unknown, options: RunOptions<Context>, task: TaskContext): Promise<Record<string, unknown>> {
    if (input instanceof Command) {
      throw new InvalidCommandError("a subgraph invoked inside a node takes state input; its interrupts are answered by resuming the root graph");
    }
    if (input !== null && input !== undefined && (typeof input !== "object" || Array.isArray(input))) {
      throw new InvalidCommandError(`run input must be an object of state updates or null; got ${Array.isArray(input) ? "an array" : typeof input}`);
    }
    const outcome = await runChild(this.#runtime, (input ?? null) as Record<string, unknown> | null, task, task.nextSubgraphSegment(), options);
    return outcome.values;
  }

  /**
   * Streams a run as `{ type, ns, data }` parts for the chosen modes. Breaking
   * out of the loop cancels the run, and the loop is left once the run has
   * stopped and released the thread: the next call on it is not busy.
   */
  stream(input: UpdateOf<S> | Command | null | undefined, options: StreamOptions<Context> = {}): AsyncIterableIterator<StreamPart> {
    const modes = normalizeModes(options.streamMode);
    const controller = new AbortController();
    const external = options.signal;
    if (external) {
      if (external.aborted) controller.abort(external.reason);
      else external.addEventListener("abort", () => controller.abort(external.reason), { once: true });
    }
    const queue = new StreamQueue<StreamPart>(() => {
      controller.abort(new RunCancelledError("the stream consumer stopped reading"));
      return settled;
    });
    const sink = new StreamSink(new Set(modes), (part) => queue.push(part), options.subgraphs ?? false);
    // Settles (never rejects) after the run has released the thread.
    const settled: Promise<void> = this.#execute(input, options, sink, controller.signal).then(
      () => queue.close(),
      (error: unknown) => queue.fail(error),
    );
    return queue;
  }

  /**
   * Checks run input before a run exists: every key must be a state channel,
   * else UnknownInputKeyError (what invoke() would fail with).
   */
  checkInput(input: Record<string, unknown>): void {
    checkInputKeys(this.#runtime, input);
  }

  async getState(threadId: string, options: { checkpointId?: string } = {}): Promise<StateSnapshot> {
    const saver = this.#requireSaver("getState()");
    const tuple = await saver.getTuple({ threadId, checkpointNs: "", ...(options.checkpointId ? { checkpointId: options.checkpointId } : {}) });
    return snapshotOf(this.#runtime, tuple);
  }

  /** Checkpoints of the thread's root graph, newest first. */
  async *getStateHistory(threadId: string, options: HistoryOptions = {}): AsyncIterable<StateSnapshot> {
    const saver = this.#requireSaver("getStateHistory()");
    for await (const tuple of saver.list({ threadId, checkpointNs: "" }, options)) {
      yield snapshotOf(this.#runtime, tuple);
    }
  }

  /**
   * Writes `values` as if node `asNode` had returned them (its edges fire), in a
   * new checkpoint. With `checkpointId`, forks from that checkpoint.
   */
  async updateState(
    threadId: string,
    values: UpdateOf<S> | null,
    options: { asNode?: string; checkpointId?: string } = {},
  ): Promise<Required<CheckpointConfig>> {
    const saver = this.#requireSaver("updateState()");
    return this.#withLock(saver, threadId, () => updateThreadState(this.#runtime, saver, threadId, values ?? {}, options));
  }

  #requireSaver(what: string): Checkpointer {
    if (!this.checkpointer) throw new MissingCheckpointerError(what);
    return this.checkpointer;
  }

  async #withLock<T>(saver: Checkpointer | undefined, threadId: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (!saver || threadId === undefined) return fn();
    let busy = busyThreads.get(saver);
    if (!busy) busyThreads.set(saver, (busy = new Set()));
    if (busy.has(threadId)) throw new ThreadBusyError(threadId);
    busy.add(threadId);
    try {
      return await fn();
    } finally {
      busy.delete(threadId);
    }
  }

  async #execute(
    input: unknown,
    options: RunOptions<Context>,
    sink: StreamSink,
    signal: AbortSignal | undefined,
  ): Promise<LoopOutcome> {
    const saver = this.checkpointer;
    const threadId = options.threadId;
    if (saver && threadId === undefined) throw new MissingThreadIdError();
    return this.#withLock(saver, threadId, async () => {
      let resumeMap = new Map<string, unknown>();
      let loopInput: Record<string, unknown> | null = null;
      let resuming = false;
      let command: { update?: unknown; goto?: unknown } | undefined;
      let preloaded: CheckpointTuple | undefined;
      if (input instanceof Command) {
        command = { update: input.update, goto: input.goto };
        if (!input.hasResume) {
          if (input.update === undefined && input.goto === undefined) {
            throw new InvalidCommandError("an empty Command as run input: give it resume, update or goto");
          }
        } else {
          if (!saver || threadId === undefined) throw new MissingCheckpointerError("resuming with Command({ resume })");
          preloaded = await saver.getTuple({ threadId, checkpointNs: "", ...(options.checkpointId ? { checkpointId: options.checkpointId } : {}) });
          resumeMap = await resolveResume(saver, threadId, preloaded, input.resume);
          resuming = true;
        }
      } else if (input !== null && input !== undefined) {
        if (typeof input !== "object" || Array.isArray(input)) {
          throw new InvalidCommandError(`run input must be an object of state updates, a Command or null; got ${Array.isArray(input) ? "an array" : typeof input}`);
        }
        loopInput = input as Record<string, unknown>;
      }
      const run: RunContext = {
        runId: options.runId ?? nanoid(),
        threadId,
        checkpointer: saver,
        resumeMap,
        consumed: new Set(),
        signal: signal ?? NEVER_ABORTED,
        context: options.context,
        tags: options.tags ?? [],
        recursionLimit: options.recursionLimit ?? DEFAULT_RECURSION_LIMIT,
      };
      const interruptBefore = pickBreakpoints(options.interruptBefore, this.#runtime.interruptBefore);
      const interruptAfter = pickBreakpoints(options.interruptAfter, this.#runtime.interruptAfter);
      if ((interruptBefore.length > 0 || interruptAfter.length > 0) && !saver) {
        throw new MissingCheckpointerError("static breakpoints");
      }
      return runLoop({
        graph: this.#runtime,
        run,
        sink,
        ns: "",
        nsPath: [],
        parents: {},
        input: loopInput,
        resuming,
        command,
        preloaded,
        checkpointId: options.checkpointId,
        interruptBefore,
        interruptAfter,
        recursionLimit: run.recursionLimit,
        metadata: options.metadata ?? {},
        runSubgraph: (node, state, task) => runSubgraph(node, state, task, this.#runtime),
      });
    });
  }

  /** @internal Runs this graph as a node of a parent graph. */
  async runAsSubgraph(state: Record<string, unknown>, task: TaskContext, nodeName: string, parentKeys: ReadonlySet<string>): Promise<unknown> {
    const input: Record<string, unknown> = {};
    for (const key of this.#runtime.stateKeyList) if (key in state) input[key] = state[key];
    const outcome = await runChild(this.#runtime, input, task, `${nodeName}:${task.task.id}`);
    const update: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(outcome.values)) if (parentKeys.has(key)) update[key] = value;
    return update;
  }
}

function runSubgraph(node: RuntimeNode, state: Record<string, unknown>, task: TaskContext, parent: RuntimeGraph): Promise<unknown> {
  const definition = node.definition;
  if (definition?.kind !== "subgraph") throw new Error(`node "${node.name}" is not a subgraph`);
  return definition.subgraph.runAsSubgraph(state, task, node.name, parent.stateKeys);
}

/**
 * Runs `child` as part of `task` (a subgraph node, or a graph invoked inside a
 * node) in the namespace segment `segment` under the task's namespace. Throws
 * GraphInterrupt when it pauses, so the task pauses too.
 */
async function runChild(
  child: RuntimeGraph,
  input: Record<string, unknown> | null,
  task: TaskContext,
  segment: string,
  options: Pick<RunOptions, "interruptBefore" | "interruptAfter" | "recursionLimit"> = {},
): Promise<LoopOutcome> {
  const ns = task.task.checkpointNs ? `${task.task.checkpointNs}|${segment}` : segment;
  const run: RunContext = { ...task.run, signal: task.signal };
  const saver = run.checkpointer;
  const interruptBefore = pickBreakpoints(options.interruptBefore, child.interruptBefore);
  const interruptAfter = pickBreakpoints(options.interruptAfter, child.interruptAfter);
  if ((interruptBefore.length > 0 || interruptAfter.length > 0) && !saver) throw new MissingCheckpointerError("static breakpoints");
  // The namespace is unique to this execution of the parent task: an existing
  // checkpoint there means the task is being re-run after a pause — continue it.
  const existing = saver && run.threadId !== undefined ? await saver.getTuple({ threadId: run.threadId, checkpointNs: ns }) : undefined;
  const outcome = await runLoop({
    graph: child,
    run,
    sink: task.sink.forSubgraph(),
    ns,
    nsPath: [...task.task.ns, segment],
    parents: { [task.task.checkpointNs]: task.task.checkpointId },
    input: existing ? null : input,
    resuming: existing !== undefined,
    preloaded: existing,
    interruptBefore,
    interruptAfter,
    recursionLimit: options.recursionLimit ?? run.recursionLimit,
    metadata: {},
    runSubgraph: (node, s, t) => runSubgraph(node, s, t, child),
  });
  if (outcome.status === "interrupted") throw new GraphInterrupt(outcome.interrupts);
  return outcome;
}

/** A non-empty per-call breakpoint list replaces the compiled one. */
function pickBreakpoints(call: RunOptions["interruptBefore"], compiled: readonly string[] | "*"): readonly string[] | "*" {
  return call !== undefined && (call === "*" || call.length > 0) ? call : compiled;
}

function outputOf(outcome: LoopOutcome): Record<string, unknown> {
  return outcome.status === "interrupted" && outcome.interrupts.length > 0
    ? { ...outcome.values, __interrupt__: outcome.interrupts }
    : outcome.values;
}

function normalizeModes(mode: StreamOptions["streamMode"]): StreamMode[] {
  const list = mode === undefined ? ["values" as const] : typeof mode === "string" ? [mode] : [...mode];
  for (const m of list) {
    if (!(STREAM_MODES as readonly string[]).includes(m)) {
      throw new InvalidCommandError(`unknown stream mode "${m}" (modes: ${STREAM_MODES.join(", ")})`);
    }
  }
  return list;
}

export type { StateSnapshot, CheckpointMetadata };
