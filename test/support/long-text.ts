/**
 * `long-text`: one node whose model streams one long message of `tokens`
 * words, as fast as it can. Each word is `word` (default "tok"); a long word
 * makes each delta large, so a paused reader's backlog outgrows what the
 * kernel's socket buffers absorb.
 */
import { END, START, ScriptedChatModel, StateGraph, contentText, humanMessage, lastValue, type Checkpointer } from "../../engine/index.ts";
import type { Assistant } from "../../hub/index.ts";

export function longText(checkpointer: Checkpointer): Assistant {
  const model = ScriptedChatModel.fromFunction(
    (messages) => {
      const { tokens, word } = JSON.parse(contentText(messages[0]?.content ?? "{}")) as { tokens?: number; word?: string };
      return `${word ?? "tok"} `.repeat(tokens ?? 1).trimEnd();
    },
    { name: "long-text", chunking: "word" },
  );
  const graph = new StateGraph({ tokens: lastValue<number>(), word: lastValue<string>(), text: lastValue<string>() })
    .addNode("write", async (state, runtime) => {
      const reply = await model.invoke([humanMessage(JSON.stringify({ tokens: state.tokens ?? 1, word: state.word ?? "tok" }))], { signal: runtime.signal });
      return { text: contentText(reply.content) };
    })
    .addEdge(START, "write")
    .addEdge("write", END)
    .compile({ checkpointer, name: "long-text" });
  return { id: "long-text", description: "Streams one message of `tokens` words (each `word`).", graph };
}
