/**
 * A `switchboard serve --config` module for the two-hubs test: assistant
 * `gated` calls $GATE_URL in its first node and waits for the answer, so the
 * test decides how long the run stays mid-flight (no timing guesses); then it
 * asks a reviewer, as the demo does.
 */
import { END, START, StateGraph, interrupt, lastValue } from "../../../../engine/index.ts";
import { defineConfig } from "../../../../client/cli/index.ts";

export default defineConfig({
  assistants: (checkpointer) => {
    const graph = new StateGraph({ work: lastValue<string>(), decision: lastValue<unknown>() })
      .addNode("work", async (_state, runtime) => {
        const gate = process.env["GATE_URL"];
        if (gate === undefined) throw new Error("set GATE_URL");
        const reply = await fetch(gate, { signal: runtime.signal });
        return { work: await reply.text() };
      })
      .addNode("review", () => ({ decision: interrupt<unknown>({ kind: "review", question: "Ship it?" }) }))
      .addEdge(START, "work")
      .addEdge("work", "review")
      .addEdge("review", END)
      .compile({ checkpointer, name: "gated" });
    return [{ id: "gated", description: "Waits at a gate the test opens, then asks a reviewer.", graph }];
  },
});
