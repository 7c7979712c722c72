/** `npm start`: the hub with the demo assistants, configured from the environment. */
import { configFromEnv, startHub } from "./index.ts";

const hub = await startHub(configFromEnv());
// The ready line: the URL to open (the web app is served at `/`).
console.log(`[switchboard] ready — open ${hub.url}/ in a browser${hub.services.auth.mode === "jwt" ? " (sign in with: switchboard token --sub you --roles reviewer --link)" : ""}`);
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
