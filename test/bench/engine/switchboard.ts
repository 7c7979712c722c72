/** The benchmark graphs built with Switchboard's engine API. */
import {
  Command,
  END,
  MemorySaver,
  START,
  ScriptedChatModel,
  Send,
  StateGraph,
  humanMessage,
  interrupt,
  lastValue,
  messages,
  reducer,
  type Checkpointer,
  type StreamPart,
} from "../../../engine/index.ts";
import { SqliteSaver } from "../../../engine/sqlite.ts";
import { check, scriptedText, type EngineUnderTest, type InterruptHarness, type InterruptStore, type TokenCount } from "./port.ts";

const concat = (all: number[], more: number[]): number[] => all.concat(more);

function countChunk(count: TokenCount, chunk: unknown): void {
  const content = (chunk as { content?: unknown }).content;
  if (typeof content === "string" && content.length > 0) {
    count.tokens += 1;
    count.chars += content.length;
  }
}

export const switchboard: EngineUnderTest = {
  label: "Switchboard",

  chain(length, saver) {
    const builder = new StateGraph({ n: lastValue<number>() });
    for (let i = 0; i < length; i++) builder.addNode(`n${i}`, (s) => ({ n: s.n + 1 }));
    builder.addEdge(START, "n0");
    for (let i = 1; i < length; i++) builder.addEdge(`n${i - 1}`, `n${i}`);
    builder.addEdge(`n${length - 1}`, END);
    const graph = builder.compile(saver === "memory" ? { checkpointer: new MemorySaver() } : {});
    return async (i) => {
      const out = await graph.invoke({ n: 0 }, saver === "memory" ? { threadId: `chain-${i}` } : {});
      return out.n;
    };
  },

  fanout(width, via) {
    const builder = new StateGraph({ results: reducer<number[], number[]>(concat, () => []), joined: lastValue<number>() });
    const workers = Array.from({ length: width }, (_, i) => `w${i}`);
    builder.addNode("fan", () => ({}));
    builder.addNode("join", (s) => ({ joined: s.results.length }));
    builder.addEdge(START, "fan");
    builder.addEdge("join", END);
    if (via === "nodes") {
      workers.forEach((name, i) => {
        builder.addNode(name, () => ({ results: [i] }));
        builder.addEdge("fan", name);
      });
      builder.addEdge(workers, "join");
    } else {
      // A Send task receives its argument in place of the state.
      builder.addNode("work", (arg) => ({ results: [(arg as unknown as { i: number }).i] }));
      builder.addConditionalEdges("fan", () => workers.map((_, i) => new Send("work", { i })), ["work"]);
      builder.addEdge("work", "join");
    }
    const graph = builder.compile();
    return async () => (await graph.invoke({})).joined;
  },

  streamMessages(tokens) {
    const model = new ScriptedChatModel({ responses: [scriptedText(tokens)], loop: true });
    const graph = new StateGraph({ messages: messages() })
      .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "model")
      .addEdge("model", END)
      .compile();
    return async () => {
      const count: TokenCount = { tokens: 0, chars: 0 };
      const parts: AsyncIterable<StreamPart> = graph.stream({ messages: [humanMessage("go")] }, { streamMode: "messages" });
      for await (const part of parts) if (part.type === "messages") countChunk(count, part.data[0]);
      return count;
    };
  },

  streamModel(tokens) {
    const model = new ScriptedChatModel({ responses: [scriptedText(tokens)], loop: true });
    return async () => {
      const count: TokenCount = { tokens: 0, chars: 0 };
      for await (const chunk of model.stream([humanMessage("go")])) countChunk(count, chunk);
      return count;
    };
  },

  async interrupts(store: InterruptStore): Promise<InterruptHarness> {
    const saver: Checkpointer & { close?: () => void } = store.kind === "memory" ? new MemorySaver() : new SqliteSaver(store.file);
    const graph = new StateGraph({ question: lastValue<string>(), answer: lastValue<string>() })
      .addNode("ask", (s) => ({ answer: interrupt<string>({ question: s.question }) }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: saver });
    return {
      async pause(threadId) {
        const out = await graph.invoke({ question: "ship it?" }, { threadId });
        check(out.__interrupt__?.length === 1, `thread ${threadId} did not pause`);
      },
      async resume(threadId) {
        const out = await graph.invoke(new Command({ resume: "yes" }), { threadId });
        check(out.answer === "yes" && out.__interrupt__ === undefined, `thread ${threadId} did not finish`);
      },
      async close() {
        saver.close?.();
      },
    };
  },
};
