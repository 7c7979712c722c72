/**
 * Demo assistant `parallel-review`: START fans out to r1, r2, r3; each asks
 * its own reviewer (`interrupt({ kind: "review", who })`) and appends
 * `{ who, answer }` to `answers`; `join` waits for all three.
 */
import { END, START, StateGraph, interrupt, lastValue, reducer, type Checkpointer } from "../../engine/index.ts";

export interface ReviewAnswer {
  who: string;
  answer: unknown;
}

const REVIEWERS = ["r1", "r2", "r3"] as const;

export function createParallelReviewGraph(checkpointer: Checkpointer) {
  const reviewer = (who: string) => () => {
    const answer = interrupt<unknown>({ kind: "review", who });
    return { answers: [{ who, answer }] };
  };
  let graph = new StateGraph({
    answers: reducer((all: ReviewAnswer[], more: ReviewAnswer[]) => [...all, ...more], () => []),
    joined: lastValue<boolean>(),
  });
  for (const who of REVIEWERS) graph = graph.addNode(who, reviewer(who)).addEdge(START, who);
  return graph
    .addNode("join", () => ({ joined: true }))
    .addEdge([...REVIEWERS], "join")
    .addEdge("join", END)
    .compile({ checkpointer, name: "parallel-review" });
}
