/**
 * The LangGraph API's message stream modes, rebuilt from the protocol's
 * content-block lifecycle (`messages` events of the thread log):
 * `messages-tuple` sends `[chunk, metadata]` per delta, where `chunk` is a
 * serialized `AIMessageChunk`; `messages` (the older mode) sends
 * `messages/metadata` once, then `messages/partial` with the whole message
 * so far, then `messages/complete`. One open message per (namespace, node):
 * protocol deltas name no message id, and the projection keeps one message
 * open per task.
 */
import type { MessagesData, Namespace } from "../../protocol/index.ts";

/** A serialized LangChain message, as the SDK's message classes read it. */
export interface MessageJson {
  type: "AIMessageChunk" | "ai";
  id: string;
  content: string;
  tool_call_chunks: Array<{ type: "tool_call_chunk"; index: number; id?: string; name?: string; args: string }>;
  tool_calls: Array<{ type: "tool_call"; id: string | null; name: string; args: Record<string, unknown> }>;
  invalid_tool_calls: unknown[];
  additional_kwargs: Record<string, unknown>;
  response_metadata: Record<string, unknown>;
  usage_metadata?: { input_tokens: number; output_tokens: number; total_tokens: number };
}

export interface MessageContext {
  threadId: string;
  runId: string;
  namespace: Namespace;
  node: string | undefined;
}

/** What one protocol `messages` event becomes, per mode. */
export interface MessageOutput {
  tuple?: [MessageJson, Record<string, unknown>];
  metadata?: Record<string, { metadata: Record<string, unknown> }>;
  partial?: MessageJson[];
  complete?: MessageJson[];
}

interface OpenMessage {
  id: string;
  metadata: Record<string, unknown>;
  text: string;
  reasoning: string;
  tools: Map<number, { id?: string; name?: string; args: string }>;
  finished: MessageJson["tool_calls"];
}

const blank = (id: string, type: MessageJson["type"]): MessageJson => ({
  type,
  id,
  content: "",
  tool_call_chunks: [],
  tool_calls: [],
  invalid_tool_calls: [],
  additional_kwargs: {},
  response_metadata: {},
});

export class MessageFormatter {
  readonly #open = new Map<string, OpenMessage>();

  push(data: MessagesData, ctx: MessageContext): MessageOutput {
    const key = `${ctx.namespace.join("|")}\u0000${ctx.node ?? ""}`;
    if (data.event === "message-start") {
      // Only AI messages stream; a human or system transcript message has nothing to say here.
      if (data.role !== "ai") return {};
      const metadata = metadataOf(ctx, data.metadata);
      this.#open.set(key, { id: data.id, metadata, text: "", reasoning: "", tools: new Map(), finished: [] });
      return { metadata: { [data.id]: { metadata } } };
    }
    const open = this.#open.get(key);
    if (!open) return {};
    switch (data.event) {
      case "content-block-start": {
        const block = data.content;
        if (block.type !== "tool_call_chunk") return {};
        const tool = { args: block.args ?? "", ...(block.id ? { id: block.id } : {}), ...(block.name ? { name: block.name } : {}) };
        open.tools.set(data.index, tool);
        const chunk = blank(open.id, "AIMessageChunk");
        chunk.tool_call_chunks.push({ type: "tool_call_chunk", index: data.index, ...tool });
        return this.#delta(open, chunk);
      }
      case "content-block-delta": {
        const chunk = blank(open.id, "AIMessageChunk");
        const delta = data.delta;
        if (delta.type === "text-delta") {
          open.text += delta.text;
          chunk.content = delta.text;
        } else if (delta.type === "reasoning-delta") {
          open.reasoning += delta.reasoning;
          chunk.additional_kwargs["reasoning_content"] = delta.reasoning;
        } else if (delta.type === "tool-call-delta") {
          const tool = open.tools.get(data.index) ?? { args: "" };
          tool.args += delta.args;
          open.tools.set(data.index, tool);
          chunk.tool_call_chunks.push({ type: "tool_call_chunk", index: data.index, args: delta.args });
        } else {
          // Data and block deltas have no AIMessageChunk form.
          return {};
        }
        return this.#delta(open, chunk);
      }
      case "content-block-finish": {
        const block = data.content;
        if (block.type === "tool_call") open.finished.push({ type: "tool_call", id: block.id ?? null, name: block.name, args: { ...block.args } });
        return {};
      }
      case "message-finish": {
        this.#open.delete(key);
        const out: MessageOutput = { complete: [this.#whole(open, "ai")] };
        const usage = data.usage;
        if (usage) {
          const chunk = blank(open.id, "AIMessageChunk");
          chunk.usage_metadata = { input_tokens: usage.input_tokens ?? 0, output_tokens: usage.output_tokens ?? 0, total_tokens: usage.total_tokens ?? 0 };
          out.tuple = [chunk, open.metadata];
        }
        return out;
      }
      case "error":
        this.#open.delete(key);
        return { complete: [this.#whole(open, "ai")] };
      default:
        return {};
    }
  }

  #delta(open: OpenMessage, chunk: MessageJson): MessageOutput {
    return { tuple: [chunk, open.metadata], partial: [this.#whole(open, "AIMessageChunk")] };
  }

  #whole(open: OpenMessage, type: MessageJson["type"]): MessageJson {
    const message = blank(open.id, type);
    message.content = open.text;
    if (open.reasoning !== "") message.additional_kwargs["reasoning_content"] = open.reasoning;
    for (const [index, tool] of open.tools) message.tool_call_chunks.push({ type: "tool_call_chunk", index, ...tool });
    message.tool_calls = [...open.finished];
    return message;
  }
}

/** LangGraph's message metadata keys, as far as the hub knows them. */
function metadataOf(ctx: MessageContext, meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const ns = ctx.namespace.join("|");
  const model = meta?.["model"];
  const provider = meta?.["provider"];
  return {
    tags: [],
    thread_id: ctx.threadId,
    run_id: ctx.runId,
    ...(ctx.node === undefined ? {} : { langgraph_node: ctx.node }),
    langgraph_checkpoint_ns: ns,
    checkpoint_ns: ns,
    ...(typeof model === "string" ? { ls_model_name: model } : {}),
    ...(typeof provider === "string" ? { ls_provider: provider } : {}),
  };
}
