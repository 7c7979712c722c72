/**
 * Named barrier: available once every named source has written to it; reset
 * when the node it triggers consumes it. Backs join edges addEdge(["a","b"], "c").
 */
import { InvalidUpdateError } from "../errors.ts";
import { EmptyValue, type Channel, type ChannelSpec } from "./base.ts";

class NamedBarrierChannel implements Channel<null, string> {
  #seen: Set<string>;
  constructor(
    private readonly name: string,
    private readonly names: ReadonlySet<string>,
    saved: string[] | undefined,
  ) {
    this.#seen = new Set(saved ?? []);
  }
  get(): null {
    if (!this.isAvailable()) EmptyValue.raise(this.name);
    return null;
  }
  isAvailable(): boolean {
    return this.#seen.size === this.names.size;
  }
  update(values: readonly string[]): boolean {
    let changed = false;
    for (const value of values) {
      if (!this.names.has(value)) {
        throw new InvalidUpdateError(`barrier "${this.name}" does not wait for "${value}"`);
      }
      if (!this.#seen.has(value)) {
        this.#seen.add(value);
        changed = true;
      }
    }
    return changed;
  }
  consume(): boolean {
    if (this.isAvailable()) {
      this.#seen.clear();
      return true;
    }
    return false;
  }
  checkpoint(): unknown {
    return this.#seen.size > 0 ? [...this.#seen].sort() : undefined;
  }
}

export function namedBarrier(names: readonly string[]): ChannelSpec<null, string> {
  const set = new Set(names);
  return {
    kind: "named_barrier",
    isPrivate: true,
    create: (name, saved) => new NamedBarrierChannel(name, set, saved as string[] | undefined),
  };
}
