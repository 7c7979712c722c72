/**
 * Runs one task: the node inside its TaskContext, with the node's retry
 * policy, timeout and the run's cancellation. Interrupts pass through; a
 * swallowed interrupt becomes a named error.
 */
import { EngineError, InterruptSwallowedError, NodeTimeoutError, RunCancelledError, isGraphInterrupt } from "../errors.ts";
import { runWithHooks } from "../runtime/hooks.ts";
import { NEVER_ABORTED, TaskContext } from "../runtime/context.ts";
import type { Interrupt, RetryPolicy } from "../types.ts";

export interface AttemptParams {
  makeContext: (signal: AbortSignal, resume: readonly Interrupt[]) => TaskContext;
  call: (ctx: TaskContext) => Promise<unknown>;
  node: string;
  retry: RetryPolicy | undefined;
  timeoutMs: number | undefined;
  /** Aborted when the run is cancelled or a sibling task failed. */
  signal: AbortSignal;
  resume: readonly Interrupt[];
}

export interface TaskOutcome {
  result: unknown;
  resume: Interrupt[];
}

/** The task paused: its interrupts, and the answers it consumed before pausing. Control flow: no stack. */
export class TaskInterrupted {
  constructor(
    readonly interrupts: Interrupt[],
    readonly resume: Interrupt[],
  ) {}
}

export class TaskFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly resume: Interrupt[],
  ) {
    super("task failed");
  }
}

const DEFAULT_RETRY = { maxAttempts: 3, initialInterval: 500, backoffFactor: 2, maxInterval: 128_000, jitter: true };

function defaultRetryOn(error: unknown): boolean {
  return !(error instanceof RunCancelledError || error instanceof NodeTimeoutError || error instanceof InterruptSwallowedError);
}

function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => {});
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function attempt(params: AttemptParams, resume: readonly Interrupt[]): Promise<TaskOutcome> {
  // A task gets its own controller only when it has a timeout; otherwise it
  // shares the step's signal (an AbortController per task is measurable).
  let signal = params.signal;
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onParentAbort = () => controller?.abort(params.signal.reason);
  if (params.timeoutMs !== undefined) {
    controller = new AbortController();
    if (params.signal.aborted) controller.abort(params.signal.reason);
    else params.signal.addEventListener("abort", onParentAbort, { once: true });
    const ms = params.timeoutMs;
    timer = setTimeout(() => controller?.abort(new NodeTimeoutError(params.node, ms)), ms);
    signal = controller.signal;
  }
  const ctx = params.makeContext(signal, resume);
  // A node that ignores its signal must not hold the step once it is aborted;
  // a signal that can never abort needs no race.
  const aborted = signal === NEVER_ABORTED ? undefined : abortPromise(signal);
  try {
    const running = runWithHooks(ctx, () => params.call(ctx));
    let result: unknown;
    try {
      if (aborted) {
        running.catch(() => {}); // it may still reject after the race is lost
        result = await Promise.race([running, aborted.promise]);
      } else {
        result = await running;
      }
    } catch (error) {
      if (isGraphInterrupt(error)) throw new TaskInterrupted(error.interrupts, ctx.resume);
      if (ctx.raised) throw new TaskFailure(new InterruptSwallowedError(params.node), ctx.resume);
      throw new TaskFailure(error, ctx.resume);
    }
    if (ctx.raised) throw new TaskFailure(new InterruptSwallowedError(params.node), ctx.resume);
    return { result, resume: ctx.resume };
  } finally {
    if (timer) clearTimeout(timer);
    aborted?.dispose();
    if (controller) params.signal.removeEventListener("abort", onParentAbort);
  }
}

/** Runs the task, retrying per policy. Throws TaskInterrupted or TaskFailure. */
export async function runTask(params: AttemptParams): Promise<TaskOutcome> {
  const policy = params.retry ? { ...DEFAULT_RETRY, ...params.retry } : { ...DEFAULT_RETRY, maxAttempts: 1 };
  const retryOn = params.retry?.retryOn ?? defaultRetryOn;
  let resume = params.resume;
  let interval = policy.initialInterval;
  for (let n = 1; ; n++) {
    try {
      return await attempt(params, resume);
    } catch (error) {
      if (!(error instanceof TaskFailure)) throw error;
      const cause = error.error;
      const cancelled = params.signal.aborted;
      if (cancelled || n >= policy.maxAttempts || isGraphInterrupt(cause) || !retryOn(cause)) {
        if (cancelled && !(cause instanceof NodeTimeoutError)) throw new TaskFailure(toCancelled(params.signal.reason), error.resume);
        throw error;
      }
      resume = error.resume;
      const wait = Math.min(interval, policy.maxInterval) * (policy.jitter ? 0.75 + Math.random() * 0.5 : 1);
      interval *= policy.backoffFactor;
      try {
        await sleep(wait, params.signal);
      } catch (reason) {
        throw new TaskFailure(toCancelled(reason), error.resume);
      }
    }
  }
}

function toCancelled(reason: unknown): unknown {
  return reason instanceof EngineError ? reason : new RunCancelledError(reason);
}
