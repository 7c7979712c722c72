/**
 * Reducer (binary-operator aggregate) channel: folds every write of a step into
 * the value with a user function. `overwrite(v)` replaces the value instead.
 */
import { InvalidUpdateError } from "../errors.ts";
import type { Channel, ChannelOptions, ChannelSpec } from "./base.ts";

const OVERWRITE = "__overwrite__";

/** A write that bypasses the reducer and replaces the channel's value. Plain JSON. */
export interface Overwrite<T> {
  readonly [OVERWRITE]: true;
  readonly value: T;
}

export function overwrite<T>(value: T): Overwrite<T> {
  return { [OVERWRITE]: true, value };
}

export function isOverwrite(value: unknown): value is Overwrite<unknown> {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[OVERWRITE] === true;
}

class ReducerChannel<T, U> implements Channel<T, U | Overwrite<T>> {
  #value: T;
  constructor(
    private readonly name: string,
    private readonly reduce: (current: T, update: U) => T,
    value: T,
  ) {
    this.#value = value;
  }
  get(): T {
    return this.#value;
  }
  isAvailable(): boolean {
    return true;
  }
  update(values: readonly (U | Overwrite<T>)[]): boolean {
    if (values.length === 0) return false;
    let overwritten = false;
    for (const value of values) {
      if (isOverwrite(value)) {
        if (overwritten) {
          throw new InvalidUpdateError(`channel "${this.name}" received more than one overwrite() in one step`);
        }
        overwritten = true;
        this.#value = value.value as T;
      } else {
        this.#value = this.reduce(this.#value, value as U);
      }
    }
    return true;
  }
  consume(): boolean {
    return false;
  }
  checkpoint(): unknown {
    return { v: this.#value };
  }
}

export function reducer<T, U = T>(
  reduce: (current: T, update: U) => T,
  initial: () => T,
  options: ChannelOptions = {},
): ChannelSpec<T, U | Overwrite<T>> {
  return {
    kind: "reducer",
    isPrivate: options.private ?? false,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    create: (name, saved) => new ReducerChannel<T, U>(name, reduce, saved === undefined ? initial() : (saved as { v: T }).v),
  };
}
