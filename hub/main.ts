/**
 * `npm start`: the hub with the demo assistants, configured from the
 * environment. A configuration the hub refuses (bad PORT, weak secret, a
 * typo) is one line on stderr with how to fix it, and exit code 2 — no stack.
 */
import { AuthConfigError } from "./auth/index.ts";
import { ConfigError, DataDirInUseError, configFromEnv, startHub } from "./index.ts";

function fail(error: unknown): never {
  if (error instanceof ConfigError || error instanceof AuthConfigError) {
    console.error(`[switchboard] cannot start: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof DataDirInUseError) {
    // "data dir … is in use by pid N": another hub holds it; nothing was changed.
    console.error(`[switchboard] cannot start: ${error.message}`);
    process.exit(1);
  }
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES") {
    console.error(`[switchboard] cannot start: ${error instanceof Error ? error.message : String(error)} — set PORT (0 = any free port) or HOST`);
    process.exit(1);
  }
  throw error;
}

const hub = await Promise.resolve()
  .then(() => startHub(configFromEnv()))
  .catch(fail);
// The ready line: the URL to open (the web app is served at `/`).
console.log(`[switchboard] ready — open ${hub.url}/ in a browser${hub.auth === "jwt" ? " (sign in with: switchboard token --sub you --roles reviewer --link)" : ""}`);
const shutdown = (signal: string): void => {
  console.log(`[switchboard] ${signal}: shutting down`);
  hub.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.once("SIGINT", () => shutdown("SIGINT"));
process.once("SIGTERM", () => shutdown("SIGTERM"));
