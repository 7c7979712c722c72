/**
 * Topic channel: collects every value written in a step (pub/sub). Without
 * `accumulate` it holds only the last step's values; with it, all of them.
 */
import { EmptyValue, type Channel, type ChannelOptions, type ChannelSpec } from "./base.ts";

class TopicChannel<T> implements Channel<T[], T | T[]> {
  #values: T[];
  constructor(
    private readonly name: string,
    private readonly accumulate: boolean,
    saved: T[] | undefined,
  ) {
    this.#values = saved ?? [];
  }
  get(): T[] {
    if (this.#values.length === 0) EmptyValue.raise(this.name);
    return this.#values;
  }
  isAvailable(): boolean {
    return this.#values.length > 0;
  }
  update(values: readonly (T | T[])[]): boolean {
    let changed = false;
    if (!this.accumulate && this.#values.length > 0) {
      this.#values = [];
      changed = true;
    }
    for (const value of values) {
      if (Array.isArray(value)) this.#values.push(...(value as T[]));
      else this.#values.push(value);
      changed = true;
    }
    return changed;
  }
  consume(): boolean {
    return false;
  }
  checkpoint(): unknown {
    return this.#values.length > 0 ? [...this.#values] : undefined;
  }
}

export interface TopicOptions extends ChannelOptions {
  /** Keep values across steps instead of only the last step's. */
  accumulate?: boolean;
}

export function topic<T>(options: TopicOptions = {}): ChannelSpec<T[], T | T[]> {
  return {
    kind: "topic",
    isPrivate: options.private ?? false,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    create: (name, saved) => new TopicChannel<T>(name, options.accumulate ?? false, saved as T[] | undefined),
  };
}
