/**
 * The contract every benchmark suite meets. run.ts knows suites only through
 * groups: engine/index.ts exports the engine group; the hub half of issue 7
 * adds hub/index.ts with its own group (its peer: a bare ws server).
 */
import type { Row } from "./lib/report.ts";

export interface SuiteContext {
  /** Fewer runs and smaller loop bounds; the whole quick run stays under a minute. */
  quick: boolean;
  /** Repetitions of each measurement. */
  runs: number;
  /** Repository root (for spawning child processes and temp files). */
  root: string;
  log(line: string): void;
}

export interface Suite {
  /** Used by --only. */
  name: string;
  /** What each row measures, printed under the table in docs/benchmarks.md. */
  notes: readonly string[];
  run(ctx: SuiteContext): Promise<Row[]>;
}

/** Suites compared against one peer; one table in the document. */
export interface SuiteGroup {
  /** Used by --only, like a suite name. */
  name: string;
  title: string;
  /** The peer column's header. */
  peer: string;
  /** npm packages whose versions the document lists for this group. */
  packages: readonly string[];
  suites: readonly Suite[];
}
