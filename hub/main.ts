/** `npm start`: the hub with the demo assistants, configured from the environment. */
import { configFromEnv, startHub } from "./index.ts";

const hub = await startHub(configFromEnv());
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
