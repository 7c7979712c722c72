/**
 * Shared fixtures of the engine tests: both checkpointers as disposable
 * fixtures (for describe.each), a node-run log, and small async helpers.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { MemorySaver, type Checkpointer, type StateSnapshot } from "../../engine/index.ts";
import { SqliteSaver } from "../../engine/sqlite.ts";

export interface SaverKind {
  name: string;
  make(): Promise<{ saver: Checkpointer; dispose(): Promise<void> }>;
}

export const SAVERS: SaverKind[] = [
  { name: "MemorySaver", make: async () => ({ saver: new MemorySaver(), dispose: async () => {} }) },
  {
    name: "SqliteSaver",
    make: async () => {
      const dir = await mkdtemp(join(tmpdir(), "switchboard-engine-"));
      const saver = new SqliteSaver(join(dir, "checkpoints.db"));
      return {
        saver,
        dispose: async () => {
          saver.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

/** A fresh checkpointer per test, disposed (file removed) after it. Call inside describe. */
export function useSaver(kind: SaverKind): () => Checkpointer {
  let fixture: Awaited<ReturnType<SaverKind["make"]>> | undefined;
  beforeEach(async () => {
    fixture = await kind.make();
  });
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });
  return () => {
    if (!fixture) throw new Error("useSaver(): no checkpointer outside a test");
    return fixture.saver;
  };
}

/** Records which nodes ran, in order; `count(name)` for per-node totals. */
export class RunLog {
  readonly entries: string[] = [];
  #mark = 0;
  hit(name: string): void {
    this.entries.push(name);
  }
  count(name: string): number {
    return this.entries.filter((e) => e === name).length;
  }
  /** The entries since the previous call (one invoke's worth). */
  take(): string[] {
    const out = this.entries.slice(this.#mark);
    this.#mark = this.entries.length;
    return out;
  }
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A promise with its resolve function, to let a test drive a node step by step. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The parts of a snapshot that the seeds print, without ids and timestamps. */
export function shapeOf(s: StateSnapshot) {
  return {
    values: s.values,
    next: s.next,
    source: s.metadata?.source,
    step: s.metadata?.step,
    tasks: s.tasks.map((t) => ({ name: t.name, path: t.path, error: t.error, interrupts: t.interrupts.map((i) => i.value), result: t.result })),
    interrupts: s.interrupts.map((i) => i.value),
  };
}
