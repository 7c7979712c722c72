/**
 * The smoke test's user config, as a new project writes it: one graph on
 * `switchboard/engine` (greet, then ask a reviewer), served by
 * `npx switchboard serve`. Copied into a fresh project that installed the
 * packed tarball; not part of the repository's own build or type check.
 */
import { END, START, StateGraph, interrupt, lastValue } from "switchboard/engine";
import { defineConfig } from "switchboard/cli";

export default defineConfig({
  // Only this config's assistant: the ready line then proves the config was the one loaded.
  demo: false,
  assistants: (checkpointer) => {
    const graph = new StateGraph({ name: lastValue<string>(), greeting: lastValue<string>(), approved: lastValue<unknown>() })
      .addNode("greet", (state) => ({ greeting: `hello, ${state.name ?? "world"}` }))
      .addNode("approve", (state) => ({ approved: interrupt<unknown>({ kind: "approve", greeting: state.greeting }) }))
      .addEdge(START, "greet")
      .addEdge("greet", "approve")
      .addEdge("approve", END)
      .compile({ checkpointer, name: "greeter" });
    return [{ id: "greeter", description: "Greets, then asks a reviewer to approve.", graph }];
  },
});
