/**
 * The benchmark graphs built with LangGraph.js's own API: Annotation.Root
 * state, its MemorySaver / SqliteSaver, interrupt, Command and Send, and
 * FakeListChatModel from @langchain/core's testing utilities as the streaming model.
 */
import { AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { Annotation, Command, END, MemorySaver, START, Send, StateGraph, interrupt, messagesStateReducer } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { check, scriptedText, type EngineUnderTest, type InterruptHarness, type InterruptStore, type TokenCount } from "./port.ts";

const concat = (all: number[], more: number[]): number[] => all.concat(more);

const ChainState = Annotation.Root({ n: Annotation<number>() });
const FanoutState = Annotation.Root({
  results: Annotation<number[], number[]>({ reducer: concat, default: () => [] }),
  joined: Annotation<number>(),
});
const ChatState = Annotation.Root({
  messages: Annotation<BaseMessage[], BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});
const ReviewState = Annotation.Root({ question: Annotation<string>(), answer: Annotation<string>() });

// Node names built in a loop are plain strings, so the builders are typed with N = string.
type Builder<R extends { spec: unknown; State: unknown; Update: unknown }> = StateGraph<R["spec"], R["State"], R["Update"], string>;

/** invoke() adds the pending interrupts to the returned state; its type does not say so. */
type Paused = typeof ReviewState.State & { __interrupt__?: unknown[] };

function countChunk(count: TokenCount, message: unknown): void {
  if (!AIMessageChunk.isInstance(message)) return;
  const content = message.content;
  if (typeof content === "string" && content.length > 0) {
    count.tokens += 1;
    count.chars += content.length;
  }
}

function makeModel(tokens: number): FakeListChatModel {
  return new FakeListChatModel({ responses: [scriptedText(tokens)] });
}

/** Streams `tokens` through streamMode "messages" from a graph whose node calls `model.invoke()`. */
async function countThroughMessages(model: FakeListChatModel | FakeStreamingChatModel): Promise<TokenCount> {
  const graph = new StateGraph(ChatState)
    .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile();
  const count: TokenCount = { tokens: 0, chars: 0 };
  const stream = await graph.stream({ messages: [new HumanMessage("go")] }, { streamMode: "messages" });
  for await (const [message] of stream) countChunk(count, message);
  return count;
}

/**
 * The same count with FakeStreamingChatModel, which awaits handleLLMNewToken
 * for every chunk (FakeListChatModel fires it without awaiting): tells a
 * model's tail loss apart from the engine's.
 */
export function countWithAwaitingModel(tokens: number): Promise<TokenCount> {
  const chunks = [...scriptedText(tokens)].map((content) => new AIMessageChunk({ content }));
  return countThroughMessages(new FakeStreamingChatModel({ sleep: 0, chunks }));
}

export const langgraph: EngineUnderTest = {
  label: "LangGraph.js",

  chain(length, saver) {
    const builder: Builder<typeof ChainState> = new StateGraph(ChainState);
    for (let i = 0; i < length; i++) builder.addNode(`n${i}`, (s: typeof ChainState.State) => ({ n: s.n + 1 }));
    builder.addEdge(START, "n0");
    for (let i = 1; i < length; i++) builder.addEdge(`n${i - 1}`, `n${i}`);
    builder.addEdge(`n${length - 1}`, END);
    const graph = builder.compile(saver === "memory" ? { checkpointer: new MemorySaver() } : {});
    return async (i) => {
      const config = saver === "memory" ? { configurable: { thread_id: `chain-${i}` } } : {};
      const out = await graph.invoke({ n: 0 }, config);
      return out.n;
    };
  },

  fanout(width, via) {
    const builder: Builder<typeof FanoutState> = new StateGraph(FanoutState);
    const workers = Array.from({ length: width }, (_, i) => `w${i}`);
    builder.addNode("fan", () => ({}));
    builder.addNode("join", (s: typeof FanoutState.State) => ({ joined: s.results.length }));
    builder.addEdge(START, "fan");
    builder.addEdge("join", END);
    if (via === "nodes") {
      workers.forEach((name, i) => {
        builder.addNode(name, () => ({ results: [i] }));
        builder.addEdge("fan", name);
      });
      builder.addEdge(workers, "join");
    } else {
      builder.addNode("work", (arg: { i: number }) => ({ results: [arg.i] }));
      builder.addConditionalEdges("fan", () => workers.map((_, i) => new Send("work", { i })), ["work"]);
      builder.addEdge("work", "join");
    }
    const graph = builder.compile();
    return async () => (await graph.invoke({})).joined;
  },

  streamMessages(tokens) {
    const model = makeModel(tokens);
    return () => countThroughMessages(model);
  },

  streamModel(tokens) {
    const model = makeModel(tokens);
    return async () => {
      const count: TokenCount = { tokens: 0, chars: 0 };
      for await (const chunk of await model.stream([new HumanMessage("go")])) countChunk(count, chunk);
      return count;
    };
  },

  async interrupts(store: InterruptStore): Promise<InterruptHarness> {
    const saver = store.kind === "memory" ? new MemorySaver() : SqliteSaver.fromConnString(store.file);
    const graph = new StateGraph(ReviewState)
      .addNode("ask", (s) => ({ answer: interrupt<{ question: string }, string>({ question: s.question }) }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: saver });
    return {
      async pause(threadId) {
        const out: Paused = await graph.invoke({ question: "ship it?" }, { configurable: { thread_id: threadId } });
        check(out.__interrupt__?.length === 1, `thread ${threadId} did not pause`);
      },
      async resume(threadId) {
        const out: Paused = await graph.invoke(new Command({ resume: "yes" }), { configurable: { thread_id: threadId } });
        check(out.answer === "yes" && out.__interrupt__ === undefined, `thread ${threadId} did not finish`);
      },
      async close() {
        if (saver instanceof SqliteSaver) saver.db.close();
      },
    };
  },
};
