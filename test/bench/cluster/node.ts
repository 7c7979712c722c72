/**
 * One hub node of the cluster benchmark: `node --import tsx node.ts`, configured
 * from the environment like `npm start` (one node, or one of several with
 * SWITCHBOARD_DATABASE_URL / SWITCHBOARD_REDIS_URL), serving the demo
 * assistants (no token delay) and `bench-stream` (the hub suite's: `count`
 * custom events `{ name: "tick", payload: { i, t } }`, t = wall clock at the
 * write, one per `intervalMs` or one per turn of the event loop). Prints
 * "listening on http://…:PORT" when ready.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { END, START, StateGraph, lastValue, type Checkpointer } from "../../../engine/index.ts";
import { configFromEnv, demoAssistants, startHub, type Assistant } from "../../../hub/index.ts";
import { wallNow } from "../lib/proc.ts";

function pacer(intervalMs: number): (i: number) => Promise<unknown> {
  if (!(intervalMs > 0)) return () => nextTurn();
  const start = performance.now();
  return (i) => {
    const wait = start + (i + 1) * intervalMs - performance.now();
    return wait > 0 ? sleep(wait) : nextTurn();
  };
}

function benchStream(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({ count: lastValue<number>(), intervalMs: lastValue<number>(), done: lastValue<boolean>() })
    .addNode("emit", async (state, runtime) => {
      const count = state.count ?? 0;
      const pace = pacer(state.intervalMs ?? 0);
      for (let i = 0; i < count && !runtime.signal.aborted; i++) {
        runtime.write({ name: "tick", payload: { i, t: wallNow() } });
        if (i + 1 < count) await pace(i);
      }
      return { done: true };
    })
    .addEdge(START, "emit")
    .addEdge("emit", END)
    .compile({ checkpointer, name: "bench-stream" });
  return { id: "bench-stream", description: "benchmark: timestamped custom events", graph };
}

const base = configFromEnv();
const hub = await startHub({
  ...base,
  dataDir: null,
  logger: { info: (m) => console.log(m), warn: () => {}, error: (m) => console.error(m) },
  assistants: (checkpointer) => [...demoAssistants({ tokenDelayMs: 0 })(checkpointer), benchStream(checkpointer)],
});
const stop = (): void => void hub.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
