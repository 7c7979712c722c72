/**
 * Turns engine AI message chunks into the spec's content-block lifecycle:
 * message-start → (content-block-start → deltas → content-block-finish)* →
 * message-finish | error. At most one block of a message is open; a chunk
 * that switches kind (reasoning → text → tool call) finishes the open block
 * first, so blocks never interleave. At most one message is open per
 * (namespace, task): a new message id in the same task finishes the old one.
 */
import { assertNever } from "../protocol/assert-never.ts";
import type { ContentBlockDelta, FinalizedContentBlock, MessagesData, UsageInfo } from "@langchain/protocol";
import { isRecord } from "../protocol/index.ts";
import { parseToolArgs } from "../../engine/index.ts";

type Namespace = readonly string[];

/** The engine's `ai_chunk`, as read (defensively) from a `messages` part. */
export interface AiChunk {
  id?: string;
  content: string;
  reasoning?: string;
  tool_call_chunks: Array<{ index: number; id?: string; name?: string; args?: string }>;
  usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
  finish_reason?: string;
  model?: string;
  last: boolean;
}


const optString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** Reads an `ai_chunk`; anything else yields null (the engine only streams chunks). */
export function readAiChunk(value: unknown): AiChunk | null {
  if (!isRecord(value) || value["type"] !== "ai_chunk") return null;
  const tools = Array.isArray(value["tool_call_chunks"]) ? value["tool_call_chunks"] : [];
  const chunk: AiChunk = {
    content: typeof value["content"] === "string" ? value["content"] : "",
    tool_call_chunks: tools.filter(isRecord).map((t) => ({
      index: typeof t["index"] === "number" ? t["index"] : 0,
      ...(optString(t["id"]) ? { id: optString(t["id"]) } : {}),
      ...(optString(t["name"]) ? { name: optString(t["name"]) } : {}),
      ...(optString(t["args"]) !== undefined ? { args: optString(t["args"]) } : {}),
    })),
    last: value["chunk_position"] === "last",
  };
  const id = optString(value["id"]);
  if (id) chunk.id = id;
  const reasoning = optString(value["reasoning"]);
  if (reasoning) chunk.reasoning = reasoning;
  const usage = value["usage"];
  if (isRecord(usage)) {
    chunk.usage = { input_tokens: count(usage["input_tokens"]), output_tokens: count(usage["output_tokens"]), total_tokens: count(usage["total_tokens"]) };
  }
  const finish = optString(value["finish_reason"]);
  if (finish) chunk.finish_reason = finish;
  const model = optString(value["model"]);
  if (model) chunk.model = model;
  return chunk;
}

type OpenBlock =
  | { kind: "text"; index: number; text: string }
  | { kind: "reasoning"; index: number; text: string }
  | { kind: "tool"; index: number; toolIndex: number; id: string | null; name: string | null; args: string };

interface OpenMessage {
  id: string;
  /** Whether `id` came from the chunks (vs generated here). */
  chunkId: boolean;
  ns: Namespace;
  node: string;
  taskId: string;
  nextIndex: number;
  block: OpenBlock | null;
  usage: UsageInfo | undefined;
  reason: string | undefined;
}

/** One messages event before the envelope is added. */
export interface MessageOut {
  ns: Namespace;
  node: string;
  data: MessagesData;
}

export interface ChunkContext {
  ns: Namespace;
  node: string;
  taskId: string;
  model?: string | undefined;
}

/** How open messages end: normally, or with an `error` event (failed/cancelled run). */
export type MessageEnd = { kind: "finish" } | { kind: "error"; message: string; code: string };

const nsKey = (ns: Namespace): string => ns.join("\u0000");
const isWithin = (ns: Namespace, prefix: Namespace): boolean => prefix.length <= ns.length && prefix.every((s, i) => ns[i] === s);

/** A finished tool call, its args parsed by the engine's one parser (so the wire and the checkpointed message agree). */
function finalizeTool(block: Extract<OpenBlock, { kind: "tool" }>): FinalizedContentBlock {
  const invalid = (error: string): FinalizedContentBlock => ({ type: "invalid_tool_call", id: block.id, name: block.name, args: block.args, error });
  if (!block.name) return invalid("tool call has no name");
  const parsed = parseToolArgs(block.args);
  return "error" in parsed ? invalid(parsed.error) : { type: "tool_call", id: block.id, name: block.name, args: parsed.args };
}

function addUsage(a: UsageInfo | undefined, b: NonNullable<AiChunk["usage"]>): UsageInfo {
  return {
    input_tokens: (a?.input_tokens ?? 0) + b.input_tokens,
    output_tokens: (a?.output_tokens ?? 0) + b.output_tokens,
    total_tokens: (a?.total_tokens ?? 0) + b.total_tokens,
  };
}

export class MessageProjector {
  readonly #open = new Map<string, OpenMessage>();
  readonly #finished = new Set<string>();
  readonly #runId: string;
  readonly #threadId: string;
  #generated = 0;

  constructor(runId: string, threadId: string) {
    this.#runId = runId;
    this.#threadId = threadId;
  }

  chunk(ctx: ChunkContext, chunk: AiChunk): MessageOut[] {
    const out: MessageOut[] = [];
    const key = `${nsKey(ctx.ns)}\u0001${ctx.taskId}`;
    let msg = this.#open.get(key);
    if (msg && chunk.id && msg.chunkId && chunk.id !== msg.id) {
      this.#close(key, msg, { kind: "finish" }, out);
      msg = undefined;
    }
    if (!msg) {
      // A straggler (e.g. a usage-only chunk) after its message finished.
      if (chunk.id && this.#finished.has(chunk.id)) return out;
      msg = this.#start(key, ctx, chunk, out);
    }
    if (chunk.reasoning) this.#appendText(msg, "reasoning", chunk.reasoning, out);
    if (chunk.content) this.#appendText(msg, "text", chunk.content, out);
    for (const tool of chunk.tool_call_chunks) this.#appendTool(msg, tool, out);
    if (chunk.usage) msg.usage = addUsage(msg.usage, chunk.usage);
    if (chunk.finish_reason) msg.reason = chunk.finish_reason;
    if (chunk.last) this.#close(key, msg, { kind: "finish" }, out);
    return out;
  }

  /** Ends the open message of a task (its result arrived). */
  endTask(ns: Namespace, taskId: string, end: MessageEnd): MessageOut[] {
    const out: MessageOut[] = [];
    const key = `${nsKey(ns)}\u0001${taskId}`;
    const msg = this.#open.get(key);
    if (msg) this.#close(key, msg, end, out);
    return out;
  }

  /** Ends every open message at or below `prefix` ([] = all). */
  endWithin(prefix: Namespace, end: MessageEnd): MessageOut[] {
    const out: MessageOut[] = [];
    for (const [key, msg] of [...this.#open]) if (isWithin(msg.ns, prefix)) this.#close(key, msg, end, out);
    return out;
  }

  #start(key: string, ctx: ChunkContext, chunk: AiChunk, out: MessageOut[]): OpenMessage {
    const id = chunk.id ?? `${this.#runId}:msg:${++this.#generated}`;
    const msg: OpenMessage = {
      id,
      chunkId: chunk.id !== undefined,
      ns: ctx.ns,
      node: ctx.node,
      taskId: ctx.taskId,
      nextIndex: 0,
      block: null,
      usage: undefined,
      reason: undefined,
    };
    this.#open.set(key, msg);
    const model = ctx.model ?? chunk.model;
    const metadata = { run_id: this.#runId, thread_id: this.#threadId, ...(model === undefined ? {} : { model }) };
    out.push({ ns: msg.ns, node: msg.node, data: { event: "message-start", role: "ai", id, run_id: id, metadata } });
    return msg;
  }

  #emit(msg: OpenMessage, data: MessagesData, out: MessageOut[]): void {
    // `run_id` names the model call (= message id): the official SDK uses it
    // to keep apart concurrent messages of one (namespace, node).
    out.push({ ns: msg.ns, node: msg.node, data: { ...data, run_id: msg.id } });
  }

  #appendText(msg: OpenMessage, kind: "text" | "reasoning", text: string, out: MessageOut[]): void {
    const open = msg.block;
    let block: Extract<OpenBlock, { kind: "text" | "reasoning" }>;
    if (open !== null && open.kind !== "tool" && open.kind === kind) {
      block = open;
    } else {
      this.#finishBlock(msg, out);
      block = { kind, index: msg.nextIndex++, text: "" };
      msg.block = block;
      const content = kind === "text" ? { type: "text", text: "" } : { type: "reasoning" as const, reasoning: "" };
      this.#emit(msg, { event: "content-block-start", index: block.index, content }, out);
    }
    block.text += text;
    const delta: ContentBlockDelta = kind === "text" ? { type: "text-delta", text } : { type: "reasoning-delta", reasoning: text };
    this.#emit(msg, { event: "content-block-delta", index: block.index, delta }, out);
  }

  #appendTool(msg: OpenMessage, tool: AiChunk["tool_call_chunks"][number], out: MessageOut[]): void {
    const open = msg.block;
    // Same call: same index and no conflicting id (some servers reuse index 0).
    const same = open?.kind === "tool" && open.toolIndex === tool.index && !(tool.id && open.id && tool.id !== open.id);
    let block: Extract<OpenBlock, { kind: "tool" }>;
    if (same && open?.kind === "tool") {
      block = open;
      const fields: Record<string, string> = {};
      if (!block.id && tool.id) block.id = fields["id"] = tool.id;
      if (!block.name && tool.name) block.name = fields["name"] = tool.name;
      if (Object.keys(fields).length > 0) {
        this.#emit(msg, { event: "content-block-delta", index: block.index, delta: { type: "block-delta", fields: { type: "tool_call_chunk", ...fields } } }, out);
      }
    } else {
      this.#finishBlock(msg, out);
      block = { kind: "tool", index: msg.nextIndex++, toolIndex: tool.index, id: tool.id ?? null, name: tool.name ?? null, args: "" };
      msg.block = block;
      const content = { type: "tool_call_chunk" as const, id: block.id, name: block.name, args: "" };
      this.#emit(msg, { event: "content-block-start", index: block.index, content }, out);
    }
    if (tool.args) {
      block.args += tool.args;
      this.#emit(msg, { event: "content-block-delta", index: block.index, delta: { type: "tool-call-delta", args: tool.args } }, out);
    }
  }

  #finishBlock(msg: OpenMessage, out: MessageOut[]): void {
    const block = msg.block;
    if (block === null) return;
    msg.block = null;
    let content: FinalizedContentBlock;
    switch (block.kind) {
      case "text":
        content = { type: "text", text: block.text };
        break;
      case "reasoning":
        content = { type: "reasoning", reasoning: block.text };
        break;
      case "tool":
        content = finalizeTool(block);
        break;
      default:
        return assertNever(block, "block");
    }
    this.#emit(msg, { event: "content-block-finish", index: block.index, content }, out);
  }

  #close(key: string, msg: OpenMessage, end: MessageEnd, out: MessageOut[]): void {
    this.#open.delete(key);
    this.#finished.add(msg.id);
    if (end.kind === "error") {
      this.#emit(msg, { event: "error", message: end.message, code: end.code }, out);
      return;
    }
    this.#finishBlock(msg, out);
    const data: MessagesData = { event: "message-finish" };
    if (msg.reason !== undefined) data["reason"] = msg.reason;
    if (msg.usage !== undefined) data["usage"] = msg.usage;
    this.#emit(msg, data, out);
  }
}
