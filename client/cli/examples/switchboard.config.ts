/**
 * An example `switchboard serve --config` module: one assistant, `ask`, whose
 * model is any OpenAI-compatible server (OpenAI, vLLM, Ollama, OpenRouter…)
 * with base URL and key from the environment; a reviewer approves each
 * answer. Outside this repo, import from "switchboard/cli" and "switchboard/engine".
 */
import {
  END,
  START,
  OpenAICompatibleChatModel,
  StateGraph,
  contentText,
  humanMessage,
  interrupt,
  lastValue,
  systemMessage,
} from "../../../engine/index.ts";
import { defineConfig } from "../index.ts";

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined || value === "") throw new Error(`set ${name} (see client/cli/README.md)`);
  return value;
};

export default defineConfig({
  assistants: (checkpointer) => {
    const model = new OpenAICompatibleChatModel({
      baseURL: env("OPENAI_BASE_URL", "https://api.openai.com/v1"),
      apiKey: env("OPENAI_API_KEY"),
      model: env("OPENAI_MODEL", "gpt-4o-mini"),
    });
    const graph = new StateGraph({
      question: lastValue<string>(),
      answer: lastValue<string>(),
      approved: lastValue<unknown>(),
    })
      .addNode("answer", async (state, runtime) => {
        const reply = await model.invoke([systemMessage("Answer in two sentences."), humanMessage(state.question ?? "Say hello.")], { signal: runtime.signal });
        return { answer: contentText(reply.content) };
      })
      .addNode("approve", (state) => ({ approved: interrupt<unknown>({ kind: "approve", question: "Send this answer?", answer: state.answer }) }))
      .addEdge(START, "answer")
      .addEdge("answer", "approve")
      .addEdge("approve", END)
      .compile({ checkpointer, name: "ask" });
    return [{ id: "ask", description: "Answers a question with your model; a reviewer approves it.", graph }];
  },
  // Keep `review` and `parallel-review` next to your own assistants.
  demo: true,
  // Tokens: `switchboard token --sub alice --roles observer,reviewer` with the same secret.
  auth: { jwtSecret: process.env["SWITCHBOARD_JWT_SECRET"] },
  // Review routing: questions go to the "support" queue (`switchboard review --queue support`)
  // and expire after a day unless the payload's own `review` field says otherwise.
  review: { defaultQueue: "support", expiresIn: "1d" },
});
