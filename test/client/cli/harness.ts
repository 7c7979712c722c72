/**
 * Drives the CLI as a user would, and waits on what it prints (never on time).
 *
 * - `cli(args, env)` runs `main(argv, ctx)` in this process: its own stdin,
 *   stdout and stderr, environment, working directory and Ctrl-C signal, and
 *   the exit code `main` resolves with. What most CLI tests use: fast, and
 *   whatever the command leaves open (a socket, a subscription) shows up in
 *   the hub's counters after the test.
 * - `spawnCli(args, env)` runs `node client/cli/bin.mjs …` in a child process:
 *   kept for the few smoke tests where the process is the thing under test
 *   (real signals, real pipes, the bin and its loader).
 * - `command(name, args)` spawns any other command (`npm start`, `npx …`).
 *
 * `startTestHub` starts a real hub in-process on port 0. Every command, process
 * and hub is disposed after the test, and each hub must end with no connection left.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { vi } from "vitest";
import { main } from "../../../client/cli/index.ts";
import { demoAssistants, silentLogger, startHub, type Hub, type HubConfig } from "../../../hub/index.ts";
import { CliSession, type Stream } from "./lines.ts";
import { onCleanup } from "../../support/cleanup.ts";

export { CliSession } from "./lines.ts";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const BIN = fileURLToPath(new URL("../../../client/cli/bin.mjs", import.meta.url));
export const SECRET = "test-secret-test-secret-test-secret-0123";


export type RunningHub = Hub & { port: number; url: string };

/** The real hub with the demo assistants (fast tokens), in memory. */
export async function startTestHub(config: HubConfig = {}): Promise<RunningHub> {
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, assistants: demoAssistants({ tokenDelayMs: 2 }), ...config });
  onCleanup(() => hub.close());
  // Runs after the commands are gone (cleanups run last-registered first): no connection is left behind.
  onCleanup(() =>
    vi.waitFor(() => {
      if (hub.stats().connections !== 0) throw new Error(`${hub.stats().connections} connections left`);
    }, { timeout: 10_000, interval: 20 }),
  );
  return hub;
}

/** Creates an empty thread (POST /threads), as an app does before anyone watches it: watch and review need a thread that exists. */
export async function createThread(url: string, threadId: string, token?: string): Promise<void> {
  const response = await fetch(`${url}/threads`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ thread_id: threadId }),
  });
  if (!response.ok) throw new Error(`POST /threads ${threadId}: ${response.status} ${await response.text()}`);
}

export interface CliOptions {
  /** The command's whole environment (not merged with this process's: tests see only what they set). */
  env?: NodeJS.ProcessEnv;
  /** Default: the repository root. */
  cwd?: string;
}

/** `switchboard <args>` run in this process through `main(argv, ctx)`. */
export class InProcessCli extends CliSession {
  readonly exited: Promise<number | null>;
  readonly #stdin = new PassThrough();
  readonly #abort = new AbortController();

  constructor(args: readonly string[], options: CliOptions = {}) {
    super();
    const stdout = this.#sink("stdout");
    const stderr = this.#sink("stderr");
    const ctx = { stdin: this.#stdin, stdout, stderr, env: { ...options.env }, cwd: options.cwd ?? ROOT, signal: this.#abort.signal, interactive: false };
    // `main` maps every failure to an exit code; a rejection here is a CLI bug, shown as output and exit null.
    this.exited = main(args, ctx).then(
      (code) => code,
      (error: unknown) => {
        this.data("stderr", `harness: main rejected: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        return null;
      },
    );
  }

  type(line: string): void {
    this.#stdin.write(`${line}\n`);
  }

  endInput(): void {
    this.#stdin.end();
  }

  /** SIGINT and SIGTERM abort the command's signal, as the bin's handlers do; so does SIGKILL (there is no harder stop in-process). */
  signal(_signal: NodeJS.Signals = "SIGINT"): void {
    this.#abort.abort();
  }

  kill(): void {
    this.#abort.abort();
    this.#stdin.end();
  }

  /** A stream whose writes become lines at once (no buffering between the command and the test). */
  #sink(stream: Stream): Writable {
    return new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _encoding, callback) => {
        this.data(stream, typeof chunk === "string" ? chunk : chunk.toString("utf8"));
        callback();
      },
    });
  }
}

/** A command in a child process. */
export class CliProcess extends CliSession {
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #group: boolean;

  /** `command` runs in its own process group when `group` (npm scripts: signals reach the whole tree). */
  constructor(command: string, args: readonly string[], options: CliOptions, group = false) {
    super();
    this.#group = group;
    const env = { ...process.env, NO_COLOR: "1", ...options.env };
    this.#child = spawn(command, [...args], { cwd: options.cwd ?? ROOT, env, stdio: "pipe", detached: group });
    for (const stream of ["stdout", "stderr"] as const) {
      this.#child[stream].setEncoding("utf8");
      this.#child[stream].on("data", (chunk: string) => this.data(stream, chunk));
    }
    this.exited = new Promise((resolve) => this.#child.once("close", (code) => resolve(code)));
  }

  /** The child's pid (for a command in a process group: the group leader's). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  type(line: string): void {
    this.#child.stdin.write(`${line}\n`);
  }

  endInput(): void {
    this.#child.stdin.end();
  }

  signal(signal: NodeJS.Signals = "SIGINT"): void {
    const pid = this.#child.pid;
    if (this.#group && pid !== undefined) process.kill(-pid, signal);
    else this.#child.kill(signal);
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

/** Runs `switchboard <args>` in process; stopped after the test if still running. */
export function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}, options: Omit<CliOptions, "env"> = {}): CliSession {
  return track(new InProcessCli(args, { ...options, env }));
}

/** Spawns `node client/cli/bin.mjs <args>` (this process's environment plus `env`); killed after the test if still running. */
export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  return track(new CliProcess(process.execPath, [BIN, ...args], { env }));
}

/** Spawns another command (e.g. `npm start`) in its own process group. */
export function command(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): CliSession {
  return track(new CliProcess(name, args, { env }, true));
}

function track<S extends CliSession>(session: S): S {
  onCleanup(async () => {
    session.kill();
    await session.exited;
  });
  return session;
}
