/**
 * The channel contract. A channel spec (declared in the state schema) creates
 * runtime channels; a runtime channel holds one value, folds a step's updates
 * into it and snapshots it as JSON for checkpoints.
 */
import { EmptyChannelError } from "../errors.ts";

export interface Channel<Value = unknown, Update = unknown> {
  /** The current value; throws EmptyChannelError when empty. */
  get(): Value;
  isAvailable(): boolean;
  /**
   * Applies all updates of one step (possibly none). Returns true when the
   * channel changed, which bumps its version.
   */
  update(values: readonly Update[]): boolean;
  /** Called after a task triggered by this channel ran; true if it changed. */
  consume(): boolean;
  /** JSON snapshot, or undefined when empty. */
  checkpoint(): unknown;
}

export interface ChannelSpec<Value = unknown, Update = unknown> {
  readonly kind: string;
  /** Private channels are checkpointed but never streamed or returned. */
  readonly isPrivate: boolean;
  /** The JSON Schema of the channel's value, when declared (LangGraph's assistant schemas list it). */
  readonly schema?: Readonly<Record<string, unknown>>;
  /** A runtime channel, empty or restored from a checkpoint snapshot. */
  create(name: string, saved?: unknown): Channel<Value, Update>;
  /** Phantom fields for type inference only; never set. */
  readonly __value?: Value;
  readonly __update?: Update;
}

export interface ChannelOptions {
  /** Checkpointed, but never streamed or returned to callers (DESIGN.md "Privacy"). */
  private?: boolean;
  /** The JSON Schema of the value, for clients that read the graph's schemas. */
  schema?: Readonly<Record<string, unknown>>;
}

export type AnyChannelSpec = ChannelSpec<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export class EmptyValue {
  static raise(name: string): never {
    throw new EmptyChannelError(name);
  }
}
