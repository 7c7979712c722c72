/**
 * A hub process for tests and scripts: `npm start`'s configuration from the
 * environment, plus JSON-able HubConfig fields (limits, origins) from
 * `SWITCHBOARD_TEST_CONFIG`, serving the demo assistants and `long-text`: one
 * node whose model streams one long message of `tokens` words.
 */
import { END, START, ScriptedChatModel, StateGraph, contentText, humanMessage, lastValue, type Checkpointer } from "../../engine/index.ts";
import { configFromEnv, demoAssistants, startHub, type Assistant, type HubConfig } from "../../hub/index.ts";

function longText(checkpointer: Checkpointer): Assistant {
  const model = ScriptedChatModel.fromFunction((messages) => "tok ".repeat(Number(contentText(messages[0]?.content ?? "")) || 1).trimEnd(), {
    name: "long-text",
    chunking: "word",
  });
  const graph = new StateGraph({ tokens: lastValue<number>(), text: lastValue<string>() })
    .addNode("write", async (state, runtime) => {
      const reply = await model.invoke([humanMessage(String(state.tokens ?? 1))], { signal: runtime.signal });
      return { text: contentText(reply.content) };
    })
    .addEdge(START, "write")
    .addEdge("write", END)
    .compile({ checkpointer, name: "long-text" });
  return { id: "long-text", description: "Streams one message of `tokens` words.", graph };
}

const extra = JSON.parse(process.env["SWITCHBOARD_TEST_CONFIG"] ?? "{}") as Partial<HubConfig>;
const hub = await startHub({
  ...configFromEnv(),
  ...extra,
  assistants: (checkpointer) => [...demoAssistants({ tokenDelayMs: 0 })(checkpointer), longText(checkpointer)],
});
const stop = (): void => void hub.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
