/**
 * `npm start`: the hub with the demo assistants, configured from the
 * environment. A configuration the hub refuses (bad PORT, weak secret, a
 * typo) is one line on stderr with how to fix it, and exit code 2 — no stack.
 */
import { launchFromEnv } from "./launch.ts";

const launched = await launchFromEnv(process.env, (line) => console.error(line));
if ("exitCode" in launched) process.exit(launched.exitCode);
const hub = launched;
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
