/**
 * What `npm start` (hub/main.ts) does before the ready line, as a function:
 * the hub from the environment, or — for a configuration the hub refuses —
 * one line on `stderr` with how to fix it and the exit code (2 for a bad
 * configuration, 1 for a data dir in use or a port that cannot be bound).
 * Anything else is thrown (a bug: the process shows its stack).
 */
import { AuthConfigError } from "./auth/index.ts";
import { ConfigError, DataDirInUseError, configFromEnv, startHub, type Hub } from "./index.ts";

export type LaunchedHub = Hub & { port: number; url: string };

export async function launchFromEnv(env: NodeJS.ProcessEnv, stderr: (line: string) => void): Promise<LaunchedHub | { exitCode: 1 | 2 }> {
  try {
    return await startHub(configFromEnv(env));
  } catch (error) {
    if (error instanceof ConfigError || error instanceof AuthConfigError) {
      stderr(`[switchboard] cannot start: ${error.message}`);
      return { exitCode: 2 };
    }
    if (error instanceof DataDirInUseError) {
      // "data dir … is in use by pid N": another hub holds it; nothing was changed.
      stderr(`[switchboard] cannot start: ${error.message}`);
      return { exitCode: 1 };
    }
    const code = error instanceof Error && "code" in error ? String(error.code) : "";
    if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES") {
      stderr(`[switchboard] cannot start: ${error instanceof Error ? error.message : String(error)} — set PORT (0 = any free port) or HOST`);
      return { exitCode: 1 };
    }
    throw error;
  }
}
