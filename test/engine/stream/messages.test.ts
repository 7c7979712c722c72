import { describe, expect, it } from "vitest";
import {
  END,
  MemorySaver,
  START,
  ScriptedChatModel,
  StateGraph,
  humanMessage,
  lastValue,
  messages,
  type AIMessageChunk,
  type MessageMetadata,
} from "../../../engine/index.ts";
import { collect, deferred } from "./helpers.ts";

const chunkText = (data: unknown) => ((data as [AIMessageChunk, MessageMetadata])[0].content as string) ?? "";

function agent(model: ScriptedChatModel, tags?: string[]) {
  return new StateGraph({ messages: messages() })
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages, tags ? { tags } : {})] }), { tags: ["agent-node"] })
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: new MemorySaver() });
}

describe("messages mode", () => {
  it("a node that calls plain invoke() streams its tokens, with metadata, before its update", async () => {
    const graph = agent(new ScriptedChatModel({ responses: ["Hello there, reviewer"], chunking: "word" }));
    const parts = await collect(
      graph.stream({ messages: [humanMessage("hi")] }, { threadId: "m1", streamMode: ["messages", "updates"], tags: ["run-tag"] }),
    );
    const tokens = parts.filter((p) => p.type === "messages");
    expect(tokens.map((p) => chunkText(p.data)).join("")).toBe("Hello there, reviewer");
    expect(tokens.length).toBe(3);
    const update = parts.findIndex((p) => p.type === "updates");
    expect(update).toBe(parts.length - 1);
    const [, meta] = tokens[0]?.data as [AIMessageChunk, MessageMetadata];
    expect(meta).toMatchObject({
      threadId: "m1",
      node: "agent",
      step: 1,
      triggers: ["branch:to:agent"],
      path: ["__pregel_pull", "agent"],
      checkpointNs: "",
      tags: ["run-tag", "agent-node"],
      model: "scripted",
    });
    expect(typeof meta.runId).toBe("string");
  });

  it("tokens arrive while the model call is still in progress", async () => {
    const firstTokenSeen = deferred();
    const model = new ScriptedChatModel({
      responses: ["ab"],
      chunking: "char",
    });
    const graph = new StateGraph({ messages: messages(), gate: lastValue<boolean>() })
      .addNode("agent", async (s) => {
        const out: unknown[] = [];
        for await (const chunk of model.stream(s.messages)) {
          out.push(chunk);
          // The second chunk is only read once the consumer has the first one.
          if (out.length === 1) await firstTokenSeen.promise;
        }
        return { gate: true };
      })
      .addEdge(START, "agent")
      .compile();
    const texts: string[] = [];
    for await (const part of graph.stream({ messages: [humanMessage("x")] }, { streamMode: "messages" })) {
      texts.push(chunkText(part.data));
      firstTokenSeen.resolve();
    }
    expect(texts).toEqual(["a", "b"]);
  });

  it("a nostream tag on the call suppresses its tokens", async () => {
    const graph = agent(new ScriptedChatModel({ responses: ["quiet please"], chunking: "char" }), ["nostream"]);
    const parts = await collect(graph.stream({ messages: [humanMessage("hi")] }, { threadId: "m2", streamMode: ["messages", "updates"] }));
    expect(parts.map((p) => p.type)).toEqual(["updates"]);
  });

  it("no token is lost at the end of a run: 10,000 tokens, then END", async () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `t${i}`).join(" ");
    const graph = agent(new ScriptedChatModel({ responses: [text], chunking: "word" }));
    const parts = await collect(graph.stream({ messages: [humanMessage("go")] }, { threadId: "m3", streamMode: "messages" }));
    const withText = parts.filter((p) => chunkText(p.data) !== "");
    expect(withText.length).toBe(10_000);
    expect(parts.map((p) => chunkText(p.data)).join("")).toBe(text);
    expect(chunkText(withText.at(-1)?.data)).toBe(" t9999");
    // The final chunk (usage, finish reason) is delivered too.
    expect((parts.at(-1)?.data as [AIMessageChunk])[0].finish_reason).toBe("stop");
    const final = await graph.getState("m3");
    expect((final.values.messages as Array<{ content: string }>).at(-1)?.content).toBe(text);
  });

  it("tool-call chunks stream with index, id, name and argument fragments", async () => {
    const model = new ScriptedChatModel({
      responses: [{ content: "", toolCalls: [{ id: "call_1", name: "get_weather", args: { city: "Beijing" } }] }],
      chunking: 4,
    });
    const parts = await collect(agent(model).stream({ messages: [humanMessage("weather?")] }, { threadId: "m4", streamMode: "messages" }));
    const chunks = parts.map((p) => (p.data as [AIMessageChunk])[0]);
    const fragments = chunks.flatMap((c) => c.tool_call_chunks ?? []);
    expect(fragments[0]).toMatchObject({ index: 0, id: "call_1", name: "get_weather" });
    expect(fragments.map((f) => f.args ?? "").join("")).toBe(JSON.stringify({ city: "Beijing" }));
    expect(chunks.at(-1)?.finish_reason).toBe("tool_calls");
  });
});

describe("subgraphs", () => {
  const inner = (model: ScriptedChatModel) =>
    new StateGraph({ messages: messages() })
      .addNode("write", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "write")
      .compile();

  const outer = (model: ScriptedChatModel) =>
    new StateGraph({ messages: messages() })
      .addNode("child", inner(model))
      .addNode("after", () => ({}))
      .addEdge(START, "child")
      .addEdge("child", "after")
      .compile({ checkpointer: new MemorySaver() });

  it("with subgraphs: true every part is namespaced ['node:taskId']", async () => {
    const graph = outer(new ScriptedChatModel({ responses: ["sub tokens"], chunking: "word" }));
    const parts = await collect(
      graph.stream({ messages: [humanMessage("go")] }, { threadId: "s1", streamMode: ["updates", "messages"], subgraphs: true }),
    );
    const nested = parts.filter((p) => p.ns.length === 1);
    expect(nested.length).toBeGreaterThan(0);
    for (const part of nested) expect(part.ns[0]).toMatch(/^child:[0-9a-f-]{36}$/);
    expect(nested.filter((p) => p.type === "messages").map((p) => chunkText(p.data)).join("")).toBe("sub tokens");
    const nestedUpdates = nested.filter((p) => p.type === "updates").map((p) => Object.keys(p.data as object)[0]);
    expect(nestedUpdates).toEqual(["write"]);
    const [, meta] = nested.find((p) => p.type === "messages")?.data as [AIMessageChunk, MessageMetadata];
    expect(meta.checkpointNs).toBe(nested[0]?.ns[0]);
    const rootUpdates = parts.filter((p) => p.ns.length === 0 && p.type === "updates").map((p) => Object.keys(p.data as object)[0]);
    expect(rootUpdates).toEqual(["child", "after"]);
  });

  it("without subgraphs, subgraph internals are not streamed", async () => {
    const graph = outer(new ScriptedChatModel({ responses: ["hidden"], chunking: "word" }));
    const parts = await collect(graph.stream({ messages: [humanMessage("go")] }, { threadId: "s2", streamMode: ["updates", "messages"] }));
    expect(parts.every((p) => p.ns.length === 0)).toBe(true);
    expect(parts.map((p) => p.type)).toEqual(["updates", "updates"]);
  });
});
