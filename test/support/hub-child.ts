/**
 * A hub process for tests and scripts: `npm start`'s configuration from the
 * environment, plus JSON-able HubConfig fields (limits, origins) from
 * `SWITCHBOARD_TEST_CONFIG`, serving the demo assistants (tokens at
 * SWITCHBOARD_DEMO_TOKEN_DELAY_MS, default 0), `long-text`: one node whose
 * model streams one long message of `tokens` words, and `gated`: a review
 * graph that, with SWITCHBOARD_TEST_GATE=review (after the answer came back,
 * before the node returns) or =finalize (in the next node), never ends that
 * node — so a test can kill the process while a resumed run is in flight;
 * and `fails-early`, whose every run fails before it saves anything (as a
 * run whose model provider is down at connect would).
 */
import { END, START, StateGraph, interrupt, lastValue, reducer, type Checkpointer } from "../../engine/index.ts";
import { configFromEnv, demoAssistants, startHub, type Assistant, type HubConfig } from "../../hub/index.ts";
import { longText } from "./long-text.ts";

function gated(checkpointer: Checkpointer): Assistant {
  const gate = process.env["SWITCHBOARD_TEST_GATE"];
  // Waits for the process to die (or the run to be cancelled).
  const closed = (runtime: { signal: AbortSignal }): Promise<never> =>
    new Promise((_, reject) => runtime.signal.addEventListener("abort", () => reject(runtime.signal.reason), { once: true }));
  const graph = new StateGraph({
    topic: lastValue<string>(),
    answer: lastValue<unknown>(),
    decision: lastValue<unknown>(),
    note: lastValue<string>(),
    finalize_calls: reducer((total: number, more: number) => total + more, () => 0),
  })
    .addNode("review", async (_state, runtime) => {
      const answer = interrupt<unknown>({ kind: "review" });
      if (gate === "review") await closed(runtime);
      return { answer };
    })
    .addNode("finalize", async (state, runtime) => {
      if (gate === "finalize") await closed(runtime);
      return { decision: state.answer, finalize_calls: 1 };
    })
    .addEdge(START, "review")
    .addEdge("review", "finalize")
    .addEdge("finalize", END)
    .compile({ checkpointer, name: "gated" });
  return { id: "gated", description: "review, then finalize; SWITCHBOARD_TEST_GATE blocks one of them", graph };
}

function failsEarly(checkpointer: Checkpointer): Assistant {
  const inner = new StateGraph({ topic: lastValue<string>() })
    .addNode("never", () => ({}))
    .addEdge(START, "never")
    .addEdge("never", END)
    .compile({ checkpointer, name: "fails-early" });
  // The compiled graph, but its stream fails at once, before the input checkpoint.
  const graph = new Proxy(inner, {
    get(target, prop) {
      if (prop === "stream") {
        return async function* refused(): AsyncGenerator<never> {
          throw new Error("the model provider refused the connection");
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { id: "fails-early", description: "every run fails before saving anything", graph };
}

const extra = JSON.parse(process.env["SWITCHBOARD_TEST_CONFIG"] ?? "{}") as Partial<HubConfig>;
const base = configFromEnv();
const hub = await startHub({
  ...base,
  ...extra,
  assistants: (checkpointer) => [...demoAssistants({ tokenDelayMs: base.demoTokenDelayMs ?? 0 })(checkpointer), longText(checkpointer), gated(checkpointer), failsEarly(checkpointer)],
});
const stop = (): void => void hub.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
