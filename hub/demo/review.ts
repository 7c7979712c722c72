/**
 * Demo assistant `review`: draft (a scripted model streams a ~40-token draft)
 * → review (`interrupt({ kind: "review", draft })`) → finalize (writes the
 * decision and counts its own calls, so tests can prove it ran exactly once).
 */
import {
  END,
  START,
  ScriptedChatModel,
  StateGraph,
  contentText,
  humanMessage,
  interrupt,
  lastValue,
  reducer,
  type Checkpointer,
} from "../../engine/index.ts";

/** 40 words, streamed one word per chunk. */
export const REVIEW_DRAFT =
  "Dear team, the quarterly release is ready for review. It includes the new streaming hub, " +
  "faster checkpoints, safer resumes and a refreshed demo. Please read the notes, check the " +
  "numbers, and approve or reject the draft before Friday noon. Thanks for your help.";

export interface DemoOptions {
  /** Delay before each streamed token; the demo default (25 ms) lets a watcher see tokens arrive. */
  tokenDelayMs?: number;
}

export function createReviewGraph(checkpointer: Checkpointer, options: DemoOptions = {}) {
  const model = new ScriptedChatModel({
    name: "scripted-drafter",
    responses: [REVIEW_DRAFT],
    loop: true,
    chunking: "word",
    delayMs: options.tokenDelayMs ?? 25,
  });
  return new StateGraph({
    topic: lastValue<string>(),
    draft: lastValue<string>(),
    // The reviewer's answer travels to finalize in a private channel (never streamed).
    answer: lastValue<unknown>({ private: true }),
    decision: lastValue<unknown>(),
    finalize_calls: reducer((total: number, more: number) => total + more, () => 0),
  })
    .addNode("draft", async (state, runtime) => {
      const prompt = humanMessage(`Write a short release note about ${state.topic ?? "the release"}.`);
      const reply = await model.invoke([prompt], { signal: runtime.signal });
      return { draft: contentText(reply.content) };
    })
    .addNode("review", (state) => {
      const answer = interrupt<unknown>({ kind: "review", draft: state.draft });
      return { answer };
    })
    .addNode("finalize", (state) => ({ decision: state.answer, finalize_calls: 1 }))
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .addEdge("review", "finalize")
    .addEdge("finalize", END)
    .compile({ checkpointer, name: "review" });
}
