/** What every command gets: its streams, the environment, the working directory and a Ctrl-C signal. */
import type { Readable, Writable } from "node:stream";
import type { ExitCode } from "./args.ts";

export interface CliContext {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Where relative paths (a config file, a data dir) are resolved from. */
  cwd: string;
  /** Aborted on SIGINT / SIGTERM: commands stop and clean up. */
  signal: AbortSignal;
  /** Whether stdin is a terminal (prompts are shown only then). */
  interactive: boolean;
}

export interface Command {
  name: string;
  help: string;
  run(argv: readonly string[], ctx: CliContext): Promise<ExitCode>;
}

/** Resolves when `signal` aborts (never rejects). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
