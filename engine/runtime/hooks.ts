/**
 * How chat models and tools report to the run they are called from, with no
 * wiring in user code (seed 000 §2.5–2.6): a model asks for an observer and
 * gets one only when the current task's run has a `messages` subscriber and
 * the call is not tagged `nostream`. A model that gets an observer streams
 * even when the node called plain `invoke()`. Tools report their lifecycle the
 * same way when a `tools` subscriber exists.
 */
import { currentScope, runInScope, runOutsideScope } from "./scope.ts";

export interface ModelCallInfo {
  /** Tags of this call (model-level tags merged with call options). */
  tags?: readonly string[];
  /** Model name, reported in the messages metadata. */
  model?: string;
}

export interface ModelStreamObserver {
  /** One provider chunk (an AIMessageChunk from engine/messages), as it arrives. */
  onChunk(chunk: unknown): void;
}

export interface ToolCallInfo {
  toolCallId: string;
  name: string;
  input: unknown;
}

export interface ToolCallObserver {
  /** Partial output while the tool runs (optional for tools that stream). */
  onOutputDelta(delta: unknown): void;
  onFinished(output: unknown): void;
  onError(message: string): void;
}

/** Installed by the engine around each task. */
export interface RunHookHost {
  observeModelCall(info: ModelCallInfo): ModelStreamObserver | undefined;
  observeToolCall(info: ToolCallInfo): ToolCallObserver | undefined;
}

/** Runs `fn` with `host` as the hook host of what it calls and awaits (runtime/scope.ts). */
export function runWithHooks<T>(host: RunHookHost, fn: () => T): T {
  return runInScope(host, fn);
}

/**
 * Runs `fn` detached from the current task: for a model call's own awaits
 * once it holds its observer (nothing after that asks the task for anything).
 */
export function detachedFromTask<T>(fn: () => T): T {
  return runOutsideScope(fn);
}

/** The hook host of the running task, or undefined outside a run. */
export function currentHookHost(): RunHookHost | undefined {
  return currentScope() as RunHookHost | undefined;
}

/** An observer for this model call, or undefined when nobody listens. */
export function observeModelCall(info: ModelCallInfo = {}): ModelStreamObserver | undefined {
  if (info.tags?.includes("nostream")) return undefined;
  return currentHookHost()?.observeModelCall(info);
}

/** An observer for this tool call (called when the tool starts), or undefined. */
export function observeToolCall(info: ToolCallInfo): ToolCallObserver | undefined {
  return currentHookHost()?.observeToolCall(info);
}
