/** `long-text`: one node whose model streams one long message of `tokens` words ("tok tok …"), as fast as it can. */
import { END, START, ScriptedChatModel, StateGraph, contentText, humanMessage, lastValue, type Checkpointer } from "../../engine/index.ts";
import type { Assistant } from "../../hub/index.ts";

export function longText(checkpointer: Checkpointer): Assistant {
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
