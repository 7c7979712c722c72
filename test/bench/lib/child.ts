/**
 * Runs one measurement in a fresh Node process (so heap numbers are not
 * polluted by whatever ran before) and returns the JSON it prints last.
 * The child is killed when it outlives its time bound.
 */
import { spawn } from "node:child_process";

export interface ChildOptions {
  cwd: string;
  timeoutMs: number;
  /** Extra node flags, e.g. ["--expose-gc"]. */
  nodeFlags?: readonly string[];
}

export class ChildFailedError extends Error {
  override readonly name = "ChildFailedError";
}

/** Spawns `node [flags] --import tsx script ...args`; resolves to the last stdout line parsed as JSON. */
export function runTsChild(script: string, args: readonly string[], options: ChildOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), "--import", "tsx", script, ...args], {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new ChildFailedError(`${script} ${args.join(" ")} took longer than ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new ChildFailedError(`${script} ${args.join(" ")} exited with ${code}: ${stderr.trim().slice(-2000)}`));
        return;
      }
      const last = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new ChildFailedError(`${script} printed no JSON result: ${stdout.slice(-500)}`));
      }
    });
  });
}
