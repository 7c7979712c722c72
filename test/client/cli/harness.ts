/**
 * Drives the CLI as a user would: `node client/cli/bin.mjs …` in a child
 * process, lines typed on its stdin, and waits on what it prints (never on
 * time). Also starts a real hub in-process on port 0. Every process and hub
 * is disposed after the test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, expect, vi } from "vitest";
import { demoAssistants, silentLogger, startHub, type Hub, type HubConfig } from "../../../hub/index.ts";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const BIN = fileURLToPath(new URL("../../../client/cli/bin.mjs", import.meta.url));
export const SECRET = "test-secret-test-secret-test-secret-0123";
const WAIT_MS = 30_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

export type RunningHub = Hub & { port: number; url: string };

/** The real hub with the demo assistants (fast tokens), in memory. */
export async function startTestHub(config: HubConfig = {}): Promise<RunningHub> {
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, assistants: demoAssistants({ tokenDelayMs: 2 }), ...config });
  cleanups.push(() => hub.close());
  // Runs after the processes are gone (cleanups run last-registered first): no connection is left behind.
  cleanups.push(() =>
    vi.waitFor(() => {
      if (hub.services.metrics.connections !== 0) throw new Error(`${hub.services.metrics.connections} connections left`);
    }, { timeout: 10_000, interval: 20 }),
  );
  return hub;
}

type Stream = "stdout" | "stderr";
type Match = string | RegExp | ((line: string) => boolean);

interface Waiter {
  stream: Stream;
  from: number;
  test: (line: string) => boolean;
  resolve: (line: string, index: number) => void;
}

export class CliProcess {
  readonly lines: Record<Stream, string[]> = { stdout: [], stderr: [] };
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #partial: Record<Stream, string> = { stdout: "", stderr: "" };
  #waiters: Waiter[] = [];
  /** Where the next `waitFor` starts looking, per stream (lines are consumed in order). */
  #cursor: Record<Stream, number> = { stdout: 0, stderr: 0 };

  readonly #group: boolean;

  /** `command` runs in its own process group when `group` (npm scripts: signals reach the whole tree). */
  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv, group = false) {
    this.#group = group;
    this.#child = spawn(command, [...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: "pipe", detached: group });
    for (const stream of ["stdout", "stderr"] as const) {
      this.#child[stream].setEncoding("utf8");
      this.#child[stream].on("data", (chunk: string) => this.#data(stream, chunk));
    }
    this.exited = new Promise((resolve) => this.#child.once("close", (code) => resolve(code)));
  }

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

  /** Types a line on the child's stdin. */
  type(line: string): void {
    this.#child.stdin.write(`${line}\n`);
  }

  /** Closes stdin (end of input). */
  endInput(): void {
    this.#child.stdin.end();
  }

  signal(signal: NodeJS.Signals = "SIGINT"): void {
    const pid = this.#child.pid;
    if (this.#group && pid !== undefined) process.kill(-pid, signal);
    else this.#child.kill(signal);
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

  #data(stream: Stream, chunk: string): void {
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

  kill(): void {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    try {
      this.signal("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Spawns `switchboard <args>`; killed after the test if still running. */
export function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  return track(new CliProcess(process.execPath, [BIN, ...args], env));
}

/** Spawns another command (e.g. `npm start`) in its own process group. */
export function command(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  return track(new CliProcess(name, args, env, true));
}

function track(child: CliProcess): CliProcess {
  cleanups.push(async () => {
    child.kill();
    await child.exited;
  });
  return child;
}
