/** Last-value channel: holds one value; more than one write in a step is an error. */
import { InvalidUpdateError } from "../errors.ts";
import { EmptyValue, type Channel, type ChannelOptions, type ChannelSpec } from "./base.ts";

class LastValueChannel<T> implements Channel<T, T> {
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
    if (values.length === 0) return false;
    if (values.length > 1) {
      throw new InvalidUpdateError(
        `channel "${this.name}" received ${values.length} values in one step; it keeps a single value — declare it with reducer(...) to combine parallel writes`,
      );
    }
    this.#has = true;
    this.#value = values[0];
    return true;
  }
  consume(): boolean {
    return false;
  }
  checkpoint(): unknown {
    // Wrapped so that a stored `undefined`/`null` value is distinguishable from "empty".
    return this.#has ? { v: this.#value } : undefined;
  }
}

export interface LastValueOptions<T> extends ChannelOptions {
  /** Initial value for a new thread. */
  default?: () => T;
}

export function lastValue<T>(options: LastValueOptions<T> = {}): ChannelSpec<T, T> {
  const initial = options.default;
  return {
    kind: "last_value",
    isPrivate: options.private ?? false,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    create: (name, saved) =>
      new LastValueChannel<T>(name, (saved as { v: T } | undefined) ?? (initial ? { v: initial() } : undefined)),
  };
}
