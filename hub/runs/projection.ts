/**
 * The event projection: engine stream parts (`{ type, ns, data }`) of one run
 * become protocol events. Pure and synchronous; one projector per run. Every
 * event gets `thread_id`, `run_id` and a per-run `run_seq`; the hub adds the
 * per-thread `seq` / `event_id` when it publishes them.
 */
import type { StreamPart, ToolEventPayload } from "../../engine/stream/types.ts";
import { assertNever } from "../protocol/assert-never.ts";
import { MessageProjector, readAiChunk, type MessageEnd, type MessageOut } from "./projection-messages.ts";
import type { CheckpointSource, CustomData, EventParams, LifecycleData, ProtocolEvent, ToolsData } from "../protocol/types.ts";
import { isRecord } from "../protocol/index.ts";

export interface ProjectorOptions {
  threadId: string;
  runId: string;
  now?: () => number;
  /** `graph_name` of the root's lifecycle events (the assistant's graph). */
  graphName?: string;
  /**
   * The run's abort signal: a task that fails once it fired was cancelled with the run, and
   * its open messages end `run_cancelled` (PROTOCOL.md, run.cancel), not `task_failed`.
   */
  signal?: AbortSignal;
}

export interface RunOutcome {
  status: "completed" | "interrupted" | "failed" | "cancelled";
  error?: string;
}

export interface Projector {
  /** Emits the root's `started` now if no part did yet (idempotent). */
  start(): ProtocolEvent[];
  push(part: StreamPart): ProtocolEvent[];
  /** Ends open messages, tools and namespaces; the last call of a projector. */
  finish(outcome: RunOutcome): ProtocolEvent[];
}

interface NamespaceState {
  ns: string[];
  running: boolean;
  ended: boolean;
  /** An interrupt was raised here or below: never end as "completed". */
  interrupted: boolean;
}

type EndStatus = RunOutcome["status"];

/** Names that make a custom payload a `custom:<name>` event. */
const CUSTOM_NAME = /^[\w.-]{1,64}$/;
const CHECKPOINT_SOURCES = ["input", "loop", "update", "fork"] as const satisfies readonly CheckpointSource[];

function isCheckpointSource(value: unknown): value is CheckpointSource {
  return CHECKPOINT_SOURCES.some((source) => source === value);
}

const keyOf = (ns: readonly string[]): string => ns.join("\u0000");
const nodeOfSegment = (segment: string): string => segment.split(":")[0] ?? segment;
const isWithin = (ns: readonly string[], prefix: readonly string[]): boolean =>
  prefix.length <= ns.length && prefix.every((s, i) => ns[i] === s);


function readInterrupts(value: unknown): Array<{ id: string; value: unknown }> {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => (isRecord(item) && typeof item["id"] === "string" ? [{ id: item["id"], value: item["value"] }] : []));
}

/**
 * Custom rule: a payload that is a plain object with a string `name` matching
 * CUSTOM_NAME goes to channel `custom:<name>` as `{ name, payload }`, where
 * payload is its `payload` field if it has one, else the object without
 * `name`. Anything else is `{ payload }` on channel `custom`.
 */
export function customDataOf(value: unknown): CustomData {
  if (isRecord(value) && typeof value["name"] === "string" && CUSTOM_NAME.test(value["name"])) {
    if (Object.hasOwn(value, "payload")) return { name: value["name"], payload: value["payload"] };
    const { name, ...rest } = value;
    return { name, payload: rest };
  }
  return { payload: value };
}

function toolsDataOf(event: ToolEventPayload): ToolsData {
  switch (event.event) {
    case "tool-started":
      return { event: "tool-started", tool_call_id: event.toolCallId, tool_name: event.name, input: event.input };
    case "tool-output-delta":
      return {
        event: "tool-output-delta",
        tool_call_id: event.toolCallId,
        delta: typeof event.delta === "string" ? event.delta : JSON.stringify(event.delta),
      };
    case "tool-finished":
      return { event: "tool-finished", tool_call_id: event.toolCallId, output: event.output };
    case "tool-error":
      return { event: "tool-error", tool_call_id: event.toolCallId, message: event.message };
    default:
      return assertNever(event, "tool event");
  }
}

export function createProjector(options: ProjectorOptions): Projector {
  const { threadId, runId, graphName } = options;
  const now = options.now ?? Date.now;
  const messages = new MessageProjector(runId, threadId);
  const namespaces = new Map<string, NamespaceState>();
  const runningTasks = new Map<string, Map<string, string>>(); // ns -> taskId -> node
  const openTools = new Map<string, readonly string[]>(); // tool_call_id -> ns
  const askedInterrupts = new Set<string>();
  let seq = 0;
  let finished = false;

  const params = <D>(ns: readonly string[], data: D, node?: string): EventParams<D> =>
    node === undefined ? { namespace: [...ns], timestamp: now(), data } : { namespace: [...ns], timestamp: now(), node, data };
  const head = () => ({ type: "event" as const, thread_id: threadId, run_id: runId, run_seq: ++seq });

  const lifecycle = (out: ProtocolEvent[], ns: readonly string[], data: LifecycleData): void => {
    const last = ns.at(-1);
    out.push({ ...head(), method: "lifecycle", params: params(ns, data, last === undefined ? undefined : nodeOfSegment(last)) });
  };

  const ensureStarted = (ns: readonly string[], out: ProtocolEvent[]): void => {
    for (let depth = 0; depth <= ns.length; depth++) {
      const prefix = ns.slice(0, depth);
      if (namespaces.has(keyOf(prefix))) continue;
      namespaces.set(keyOf(prefix), { ns: prefix, running: false, ended: false, interrupted: false });
      const last = prefix.at(-1);
      const name = last === undefined ? graphName : nodeOfSegment(last);
      lifecycle(out, prefix, name === undefined ? { event: "started" } : { event: "started", graph_name: name });
    }
  };

  /** A namespace runs once it executes something; its ancestors run too. */
  const ensureRunning = (ns: readonly string[], out: ProtocolEvent[]): void => {
    // `running` never reverts, and is set on every ancestor at once: nothing to do (the
    // common case: every token and custom event of a running node comes here).
    if (namespaces.get(keyOf(ns))?.running === true) return;
    ensureStarted(ns, out);
    for (let depth = 0; depth <= ns.length; depth++) {
      const state = namespaces.get(keyOf(ns.slice(0, depth)));
      if (!state || state.running || state.ended) continue;
      state.running = true;
      lifecycle(out, state.ns, { event: "running" });
    }
  };

  const endNamespace = (state: NamespaceState, status: EndStatus, error: string | undefined, out: ProtocolEvent[]): void => {
    if (state.ended) return;
    state.ended = true;
    const effective = status === "completed" && state.interrupted ? "interrupted" : status;
    switch (effective) {
      case "completed":
      case "interrupted":
        lifecycle(out, state.ns, { event: effective });
        return;
      case "failed":
        lifecycle(out, state.ns, { event: "failed", error: error ?? "run failed" });
        return;
      case "cancelled":
        lifecycle(out, state.ns, { event: "failed", error: error ?? "run cancelled", cancelled: true });
        return;
      default:
        assertNever(effective, "status");
    }
  };

  const pushMessages = (items: MessageOut[], out: ProtocolEvent[]): void => {
    for (const item of items) out.push({ ...head(), method: "messages", params: params(item.ns, item.data, item.node) });
  };

  /** Ends `prefix` and everything open below it, deepest first. */
  const endSubtree = (prefix: readonly string[], status: EndStatus, error: string | undefined, out: ProtocolEvent[]): void => {
    const end: MessageEnd =
      status === "failed" || status === "cancelled"
        ? { kind: "error", message: error ?? `run ${status}`, code: status === "failed" ? "run_failed" : "run_cancelled" }
        : { kind: "finish" };
    pushMessages(messages.endWithin([...prefix], end), out);
    if (status !== "completed") {
      for (const [toolCallId, ns] of [...openTools]) {
        if (!isWithin(ns, prefix)) continue;
        openTools.delete(toolCallId);
        const data: ToolsData = { event: "tool-error", tool_call_id: toolCallId, message: error ?? `run ${status}`, code: `run_${status}` };
        out.push({ ...head(), method: "tools", params: params(ns, data) });
      }
    }
    const open = [...namespaces.values()].filter((s) => !s.ended && isWithin(s.ns, prefix));
    open.sort((a, b) => b.ns.length - a.ns.length);
    for (const state of open) endNamespace(state, status, error, out);
  };

  /** The node of an event that does not name one: the only task running in ns. */
  const soleNode = (ns: readonly string[]): string | undefined => {
    // Runs for every custom event: no allocation.
    let only: string | undefined;
    for (const name of runningTasks.get(keyOf(ns))?.values() ?? []) {
      if (only === undefined) only = name;
      else if (name !== only) return undefined;
    }
    return only;
  };

  const askInterrupt = (ns: readonly string[], id: string, value: unknown, node: string | undefined, out: ProtocolEvent[]): void => {
    if (askedInterrupts.has(id)) return; // bubbled copies from parent graphs
    askedInterrupts.add(id);
    for (let depth = 0; depth <= ns.length; depth++) {
      const state = namespaces.get(keyOf(ns.slice(0, depth)));
      if (state) state.interrupted = true;
    }
    out.push({ ...head(), method: "input.requested", params: params(ns, { interrupt_id: id, payload: value }, node) });
  };

  const pushTasks = (part: Extract<StreamPart, { type: "tasks" }>, out: ProtocolEvent[]): void => {
    const { ns, data } = part;
    const tasks = runningTasks.get(keyOf(ns)) ?? new Map<string, string>();
    runningTasks.set(keyOf(ns), tasks);
    if (!("interrupts" in data)) {
      tasks.set(data.id, data.name);
      out.push({ ...head(), method: "tasks", params: params(ns, { ...data }, data.name) });
      return;
    }
    tasks.delete(data.id);
    const failed = data.error !== null;
    const cancelled = failed && options.signal?.aborted === true;
    const reason: unknown = options.signal?.reason;
    const end: MessageEnd = cancelled
      ? { kind: "error", message: reason instanceof Error ? reason.message : "run cancelled", code: "run_cancelled" }
      : failed
        ? { kind: "error", message: data.error ?? "task failed", code: "task_failed" }
        : { kind: "finish" };
    pushMessages(messages.endTask(ns, data.id, end), out);
    for (const interrupt of data.interrupts) askInterrupt(ns, interrupt.id, interrupt.value, data.name, out);
    out.push({ ...head(), method: "tasks", params: params(ns, { ...data }, data.name) });
    // A subgraph run as this task ends with it.
    const child = [...ns, `${data.name}:${data.id}`];
    if (namespaces.has(keyOf(child))) {
      const status = cancelled ? "cancelled" : failed ? "failed" : data.interrupts.length > 0 ? "interrupted" : "completed";
      endSubtree(child, status, data.error ?? undefined, out);
    }
  };

  const pushPart = (part: StreamPart, out: ProtocolEvent[]): void => {
    const ns = part.ns;
    switch (part.type) {
      case "values":
        ensureStarted(ns, out);
        // The engine also reports a pause in values mode; on the wire it is input.requested.
        if ("__interrupt__" in part.data) return;
        out.push({ ...head(), method: "values", params: params(ns, part.data) });
        return;
      case "updates":
        // A replay of a task that finished before the pause (the engine marks it
        // cached): the wire carried it then; it is not new work.
        if (isRecord(part.data["__metadata__"]) && part.data["__metadata__"]["cached"] === true) return;
        ensureRunning(ns, out);
        for (const [node, update] of Object.entries(part.data)) {
          if (node === "__metadata__") continue;
          if (node === "__interrupt__") {
            for (const interrupt of readInterrupts(update)) askInterrupt(ns, interrupt.id, interrupt.value, soleNode(ns), out);
            continue;
          }
          // A node that wrote nothing reports null: an empty delta.
          const values = isRecord(update) ? update : {};
          out.push({ ...head(), method: "updates", params: params(ns, { node, values }, node) });
        }
        return;
      case "messages": {
        const [raw, meta] = part.data;
        const chunk = readAiChunk(raw);
        if (chunk === null) return;
        ensureRunning(ns, out);
        const ctx = { ns: [...ns], node: meta.node, taskId: meta.taskId || meta.node, model: meta.model };
        pushMessages(messages.chunk(ctx, chunk), out);
        return;
      }
      case "custom": {
        ensureRunning(ns, out);
        out.push({ type: "event", thread_id: threadId, run_id: runId, run_seq: ++seq, method: "custom", params: params(ns, customDataOf(part.data), soleNode(ns)) });
        return;
      }
      case "tasks":
        ensureRunning(ns, out);
        pushTasks(part, out);
        return;
      case "checkpoints": {
        ensureStarted(ns, out);
        const { config, parentConfig, metadata } = part.data;
        const step = typeof metadata["step"] === "number" ? metadata["step"] : -1;
        const source = isCheckpointSource(metadata["source"]) ? metadata["source"] : "loop";
        // The spec's `parent_id?`: absent only on a thread's first checkpoint, which follows none.
        const data = { id: config.checkpointId, ...(parentConfig ? { parent_id: parentConfig.checkpointId } : {}), step, source };
        out.push({ ...head(), method: "checkpoints", params: params(ns, data) });
        return;
      }
      case "tools": {
        ensureRunning(ns, out);
        const data = toolsDataOf(part.data);
        if (data.event === "tool-started") openTools.set(data.tool_call_id, [...ns]);
        else if (data.event !== "tool-output-delta") openTools.delete(data.tool_call_id);
        out.push({ ...head(), method: "tools", params: params(ns, data, soleNode(ns)) });
        return;
      }
      case "debug":
        // Not projected: `tasks` and `checkpoints` carry the same facts.
        return;
      default:
        assertNever(part, "stream part");
    }
  };

  return {
    start() {
      if (finished) throw new Error(`projector for run ${runId} already finished`);
      const out: ProtocolEvent[] = [];
      ensureStarted([], out);
      return out;
    },
    push(part) {
      if (finished) throw new Error(`projector for run ${runId} already finished; got a late "${part.type}" part`);
      const out: ProtocolEvent[] = [];
      pushPart(part, out);
      return out;
    },
    finish(outcome) {
      if (finished) throw new Error(`projector for run ${runId} already finished`);
      finished = true;
      const out: ProtocolEvent[] = [];
      ensureStarted([], out);
      endSubtree([], outcome.status, outcome.error, out);
      return out;
    },
  };
}
