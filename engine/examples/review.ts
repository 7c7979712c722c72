/**
 * A runnable engine example: draft → review (interrupt) → finalize, resumed
 * with the reviewer's answer. Run: npx tsx engine/examples/review.ts
 */
import { Command, END, MemorySaver, START, StateGraph, interrupt, lastValue, reducer } from "../index.ts";

const graph = new StateGraph({
  topic: lastValue<string>(),
  draft: lastValue<string>(),
  decision: lastValue<string>(),
  log: reducer((all: string[], more: string[]) => [...all, ...more], () => []),
})
  .addNode("draft", (state) => ({ draft: `A short note about ${state.topic}.`, log: ["drafted"] }))
  .addNode("review", (state) => {
    const answer = interrupt<string>({ kind: "review", draft: state.draft });
    return { decision: answer, log: [`reviewed: ${answer}`] };
  })
  .addNode("finalize", (state) => ({ log: [`finalized (${state.decision})`] }))
  .addEdge(START, "draft")
  .addEdge("draft", "review")
  .addEdge("review", "finalize")
  .addEdge("finalize", END)
  .compile({ checkpointer: new MemorySaver() });

const paused = await graph.invoke({ topic: "supersteps" }, { threadId: "demo" });
console.log("paused on:", paused.__interrupt__);

for await (const part of graph.stream(new Command({ resume: "approve" }), { threadId: "demo", streamMode: "updates" })) {
  console.log(part.type, JSON.stringify(part.data));
}
console.log("final:", (await graph.getState("demo")).values);
