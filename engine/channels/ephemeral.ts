/**
 * Ephemeral channel: a value visible for exactly one step after it is written,
 * then cleared. Also used internally for edge triggers ("branch:to:node").
 */
import { EmptyValue, type Channel, type ChannelOptions, type ChannelSpec } from "./base.ts";

class EphemeralChannel<T> implements Channel<T, T> {
  #has: boolean;
  #value: T | undefined;
  constructor(
    private readonly name: string,
    saved: { v: T } | undefined,
  ) {
    this.#has = saved !== undefined;
    this.#value = saved?.v;
  }
  get(): T {
    if (!this.#has) EmptyValue.raise(this.name);
    return this.#value as T;
  }
  isAvailable(): boolean {
    return this.#has;
  }
  update(values: readonly T[]): boolean {
    if (values.length === 0) {
      if (!this.#has) return false;
      this.#has = false;
      this.#value = undefined;
      return true;
    }
    // Several writers in one step (e.g. two edges into one node) are fine: last wins.
    this.#has = true;
    this.#value = values[values.length - 1];
    return true;
  }
  consume(): boolean {
    return false;
  }
  checkpoint(): unknown {
    return this.#has ? { v: this.#value } : undefined;
  }
}

export function ephemeral<T>(options: ChannelOptions = {}): ChannelSpec<T, T> {
  return {
    kind: "ephemeral",
    isPrivate: options.private ?? false,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    create: (name, saved) => new EphemeralChannel<T>(name, saved as { v: T } | undefined),
  };
}
