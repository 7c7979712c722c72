/**
 * What a CLI test reads: the lines a command printed on stdout and stderr,
 * and `waitFor` on them (never on time). Shared by the in-process runner and
 * the spawned process, so a test reads the same whichever it uses.
 */
import { expect } from "vitest";

export type Stream = "stdout" | "stderr";
export type Match = string | RegExp | ((line: string) => boolean);

/** How long a `waitFor` waits for its line before failing with what was printed. */
const WAIT_MS = 30_000;

interface Waiter {
  stream: Stream;
  from: number;
  test: (line: string) => boolean;
  resolve: (line: string, index: number) => void;
}

/** A running command seen through its output: lines, line waits, stdin, signals, the exit code. */
export abstract class CliSession {
  readonly lines: Record<Stream, string[]> = { stdout: [], stderr: [] };
  /** The exit code (null: killed by a signal). */
  abstract readonly exited: Promise<number | null>;
  readonly #partial: Record<Stream, string> = { stdout: "", stderr: "" };
  #waiters: Waiter[] = [];
  /** Where the next `waitFor` starts looking, per stream (lines are consumed in order). */
  #cursor: Record<Stream, number> = { stdout: 0, stderr: 0 };

  /** Types a line on the command's stdin. */
  abstract type(line: string): void;
  /** Closes stdin (end of input). */
  abstract endInput(): void;
  /** Ctrl-C (SIGINT) or SIGTERM; SIGKILL ends it without cleanup where that exists. */
  abstract signal(signal?: NodeJS.Signals): void;
  /** Stops it if still running (after the test). */
  abstract kill(): void;

  get stdout(): string {
    return [...this.lines.stdout, this.#partial.stdout].join("\n");
  }
  get stderr(): string {
    return [...this.lines.stderr, this.#partial.stderr].join("\n");
  }

  /** Resolves with the first line (after the previous match) that matches; fails after 30 s with what was printed. */
  async waitFor(match: Match, stream: Stream = "stdout"): Promise<string> {
    const found = await this.#find(match, stream, this.#cursor[stream]);
    this.#cursor[stream] = Math.max(this.#cursor[stream], found.index + 1);
    return found.line;
  }

  /** Waits for every match, in any order (events of different sources may interleave). */
  async waitForAll(matches: readonly Match[], stream: Stream = "stdout"): Promise<string[]> {
    const from = this.#cursor[stream];
    const found = await Promise.all(matches.map((m) => this.#find(m, stream, from)));
    this.#cursor[stream] = Math.max(this.#cursor[stream], ...found.map((f) => f.index + 1));
    return found.map((f) => f.line);
  }

  /** The exit code, asserting it. */
  async expectExit(code: number): Promise<void> {
    const actual = await this.exited;
    expect(actual, `exit code\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`).toBe(code);
  }

  /** The stdout lines parsed as JSON records (for --json). */
  records(): Array<Record<string, unknown>> {
    return this.lines.stdout.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Feeds printed text in (subclasses call this with each chunk). */
  protected data(stream: Stream, chunk: string): void {
    const parts = (this.#partial[stream] + chunk).split("\n");
    this.#partial[stream] = parts.pop() ?? "";
    for (const line of parts) {
      this.lines[stream].push(line);
      const index = this.lines[stream].length - 1;
      for (const waiter of [...this.#waiters]) {
        if (waiter.stream !== stream || index < waiter.from || !waiter.test(line)) continue;
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        waiter.resolve(line, index);
      }
    }
  }

  #find(match: Match, stream: Stream, from: number): Promise<{ line: string; index: number }> {
    const test = typeof match === "string" ? (l: string) => l.includes(match) : match instanceof RegExp ? (l: string) => match.test(l) : match;
    const lines = this.lines[stream];
    for (let i = from; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (test(line)) return Promise.resolve({ line, index: i });
    }
    const printed = (): string => `\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${stream} line matching ${String(match)}${printed()}`));
      }, WAIT_MS);
      const waiter: Waiter = {
        stream,
        from,
        test,
        resolve: (line, index) => {
          clearTimeout(timer);
          resolve({ line, index });
        },
      };
      this.#waiters.push(waiter);
      void this.exited.then(() => {
        if (!this.#waiters.includes(waiter)) return;
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        clearTimeout(timer);
        reject(new Error(`exited before a ${stream} line matching ${String(match)}${printed()}`));
      });
    });
  }
}
