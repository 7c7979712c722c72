/**
 * Public types of the engine: state inference from a channel schema, Send,
 * Command, the runtime a node receives, and invoke/stream options.
 */
import type { AnyChannelSpec, ChannelSpec } from "./channels/base.ts";
import type { StreamMode } from "./stream/types.ts";

export type StateSchema = Record<string, AnyChannelSpec>;

/* eslint-disable @typescript-eslint/no-explicit-any */
export type StateOf<S extends StateSchema> = {
  [K in keyof S]: S[K] extends ChannelSpec<infer V, any> ? V : never;
};
export type UpdateOf<S extends StateSchema> = {
  [K in keyof S]?: S[K] extends ChannelSpec<any, infer U> ? U : never;
};
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Map-reduce fan-out: run `node` in the next step with `arg` as its input. */
export class Send<Arg = unknown> {
  readonly node: string;
  readonly arg: Arg;
  constructor(node: string, arg: Arg) {
    this.node = node;
    this.arg = arg;
  }
}

export type Goto = string | Send | ReadonlyArray<string | Send>;

export interface CommandFields<Update> {
  /** Answer(s) to pending interrupts: a bare value, or `{ [interruptId]: value }`. */
  resume?: unknown;
  /** State update, applied as if the current node returned it. */
  update?: Update;
  /** Node(s) to run next, in addition to the node's edges. */
  goto?: Goto;
}

/** Returned by a node (update + goto) or passed to invoke/stream (resume). */
export class Command<Update = Record<string, unknown>> {
  readonly resume?: unknown;
  readonly update?: Update;
  readonly goto?: Goto;
  readonly hasResume: boolean;
  constructor(fields: CommandFields<Update>) {
    this.hasResume = "resume" in fields;
    if (this.hasResume) this.resume = fields.resume;
    if (fields.update !== undefined) this.update = fields.update;
    if (fields.goto !== undefined) this.goto = fields.goto;
  }
}

export function isCommand(value: unknown): value is Command<unknown> {
  return value instanceof Command;
}

export interface Interrupt {
  /** Unique per (thread, checkpoint, task, index); stable across replays. */
  id: string;
  value: unknown;
}

/** What a node receives beside its state. */
export interface Runtime<Context = unknown> {
  readonly threadId: string | undefined;
  readonly runId: string;
  readonly node: string;
  readonly step: number;
  readonly taskId: string;
  /** Checkpoint namespace of this task's graph ("" at the root). */
  readonly checkpointNs: string;
  /** Aborted when the run is cancelled or the node times out; pass it on. */
  readonly signal: AbortSignal;
  /** Caller-supplied context (options.context). */
  readonly context: Context;
  /** Same as the free function interrupt(). */
  interrupt<T = unknown>(value: unknown): T;
  /** Emits a `custom` stream part. */
  write(value: unknown): void;
}

export type NodeResult<U> = U | Command<U> | void | null | undefined;

export type NodeAction<S extends StateSchema, Context = unknown> = (
  state: StateOf<S>,
  runtime: Runtime<Context>,
) => NodeResult<UpdateOf<S>> | Promise<NodeResult<UpdateOf<S>>>;

export interface RetryPolicy {
  /** Total attempts including the first (default 3 when a policy is given). */
  maxAttempts?: number;
  /** Milliseconds before the first retry (default 500). */
  initialInterval?: number;
  backoffFactor?: number;
  maxInterval?: number;
  /** Randomize each wait by up to ±25% (default true). */
  jitter?: boolean;
  /** Which errors to retry (default: all but cancellation, timeouts and interrupts). */
  retryOn?: (error: unknown) => boolean;
}

export interface RunOptions<Context = unknown> {
  threadId?: string;
  /** Run from (fork) this checkpoint instead of the latest. */
  checkpointId?: string;
  signal?: AbortSignal;
  recursionLimit?: number;
  /** A non-empty list replaces the compiled breakpoints for this call. */
  interruptBefore?: readonly string[] | "*";
  interruptAfter?: readonly string[] | "*";
  context?: Context;
  runId?: string;
  /** Extra metadata stored with every checkpoint of this run (JSON). */
  metadata?: Record<string, unknown>;
  tags?: readonly string[];
}

export interface StreamOptions<Context = unknown> extends RunOptions<Context> {
  streamMode?: StreamMode | readonly StreamMode[];
  subgraphs?: boolean;
}
