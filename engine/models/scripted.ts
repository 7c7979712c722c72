/**
 * ScriptedChatModel: a deterministic model for tests and the demo, like the
 * seed's fake model (seed 000 §2.3). Each call takes the next scripted
 * response (or asks a function) and streams it the way a provider would:
 * reasoning and text in pieces, tool-call arguments as JSON fragments, and a
 * last chunk that carries usage, finish_reason and chunk_position "last".
 */
import { setTimeout as sleep } from "node:timers/promises";
import { contentText } from "../messages/index.ts";
import type { AIMessageChunk, Message, ToolCallChunk, UsageMetadata } from "../messages/index.ts";
import { BaseChatModel } from "./base.ts";
import type { BaseChatModelFields, ModelRequest } from "./base.ts";
import { MODEL_ERROR_CODES, ModelError } from "./errors.ts";
import type { ToolChoice } from "./types.ts";

export interface ScriptedToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export type ScriptedResponse =
  | string
  | {
      /** Message id; by default the base model assigns one per call. */
      id?: string;
      content?: string;
      reasoning?: string;
      toolCalls?: readonly ScriptedToolCall[];
      /** Overrides the computed usage. */
      usage?: UsageMetadata;
    };

/** What the model was asked, recorded for each call. */
export interface ScriptedCall {
  /** 0-based number of the call on this model. */
  index: number;
  messages: readonly Message[];
  /** Names of the tools bound for the call. */
  tools: readonly string[];
  tags: readonly string[];
  toolChoice?: ToolChoice;
}

export type ScriptedResponder = (
  messages: readonly Message[],
  call: ScriptedCall,
) => ScriptedResponse | Promise<ScriptedResponse>;

/** "char": one code point per chunk; "word": a word with its leading space; n: n code points. */
export type Chunking = "char" | "word" | number;

export interface ScriptedChatModelFields extends BaseChatModelFields {
  responses: readonly ScriptedResponse[] | ScriptedResponder;
  chunking?: Chunking;
  /** Wait before each chunk; the wait ends early when the call is aborted. */
  delayMs?: number;
  name?: string;
  /** Start over at the first response when they run out (instead of throwing). */
  loop?: boolean;
}

const codePoints = (text: string): string[] => Array.from(text);

function splitText(text: string, chunking: Chunking): string[] {
  if (text === "") return [];
  if (chunking === "char") return codePoints(text);
  if (chunking === "word") return text.match(/\s*\S+|\s+$/gu) ?? [text];
  const points = codePoints(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += chunking) out.push(points.slice(i, i + chunking).join(""));
  return out;
}

/** JSON has no spaces to split words at; "word" pieces end at `,` and `:` instead. */
function splitArgs(json: string, chunking: Chunking): string[] {
  if (chunking === "word") return json.match(/[^,:]+[,:]?|[,:]/g) ?? [json];
  return splitText(json, chunking);
}

function countWords(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += contentText(m.content).split(/\s+/u).filter(Boolean).length;
  return n;
}

export class ScriptedChatModel extends BaseChatModel {
  readonly name: string;
  readonly #responses: readonly ScriptedResponse[] | ScriptedResponder;
  readonly #chunking: Chunking;
  readonly #delayMs: number;
  readonly #loop: boolean;
  readonly #calls: ScriptedCall[] = [];

  constructor(fields: ScriptedChatModelFields) {
    super(fields);
    const { chunking = "char", delayMs = 0 } = fields;
    if (typeof chunking === "number" && !(Number.isInteger(chunking) && chunking > 0)) {
      throw new ModelError(MODEL_ERROR_CODES.INVALID_CONFIG, `chunking must be "char", "word" or a positive integer, got ${chunking}`);
    }
    if (!(Number.isFinite(delayMs) && delayMs >= 0)) {
      throw new ModelError(MODEL_ERROR_CODES.INVALID_CONFIG, `delayMs must be a finite number >= 0, got ${delayMs}`);
    }
    this.name = fields.name ?? "scripted";
    this.#responses = fields.responses;
    this.#chunking = chunking;
    this.#delayMs = delayMs;
    this.#loop = fields.loop ?? false;
  }

  /** A model whose every response is computed from the messages it gets. */
  static fromFunction(respond: ScriptedResponder, fields: Omit<ScriptedChatModelFields, "responses"> = {}): ScriptedChatModel {
    return new ScriptedChatModel({ ...fields, responses: respond });
  }

  /** Every call so far, in order. */
  get calls(): readonly ScriptedCall[] {
    return this.#calls;
  }

  protected async *_stream(messages: readonly Message[], request: ModelRequest): AsyncGenerator<AIMessageChunk> {
    const call: ScriptedCall = {
      index: this.#calls.length,
      messages: [...messages],
      tools: request.tools.map((t) => t.name),
      tags: request.tags,
    };
    if (request.toolChoice !== undefined) call.toolChoice = request.toolChoice;
    this.#calls.push(call);
    const response = await this.#next(messages, call);
    for (const chunk of this.#chunks(response, call, messages)) {
      if (this.#delayMs > 0) await sleep(this.#delayMs, undefined, { signal: request.signal });
      yield chunk;
    }
  }

  async #next(messages: readonly Message[], call: ScriptedCall): Promise<ScriptedResponse> {
    const script = this.#responses;
    if (typeof script === "function") return script(messages, call);
    const at = this.#loop && script.length > 0 ? call.index % script.length : call.index;
    const response = script[at];
    if (response === undefined) {
      throw new ModelError(
        MODEL_ERROR_CODES.SCRIPT_EXHAUSTED,
        `ScriptedChatModel "${this.name}" has no response for call #${call.index + 1} (it was given ${script.length}); add responses or pass { loop: true }`,
      );
    }
    return response;
  }

  #chunks(response: ScriptedResponse, call: ScriptedCall, messages: readonly Message[]): AIMessageChunk[] {
    const r = typeof response === "string" ? { content: response } : response;
    const chunks: AIMessageChunk[] = [];
    for (const piece of splitText(r.reasoning ?? "", this.#chunking)) {
      chunks.push({ type: "ai_chunk", content: "", reasoning: piece });
    }
    for (const piece of splitText(r.content ?? "", this.#chunking)) {
      chunks.push({ type: "ai_chunk", content: piece });
    }
    const toolCalls = r.toolCalls ?? [];
    toolCalls.forEach((tc, index) => {
      // Like OpenAI: id and name come with the first fragment only.
      const head: ToolCallChunk = { index, id: tc.id ?? `call_${call.index + 1}_${index}`, name: tc.name, args: "" };
      const pieces = splitArgs(JSON.stringify(tc.args), this.#chunking);
      pieces.forEach((args, j) => {
        chunks.push({ type: "ai_chunk", content: "", tool_call_chunks: [j === 0 ? { ...head, args } : { index, args }] });
      });
    });
    if (chunks.length === 0) chunks.push({ type: "ai_chunk", content: "" });
    const outputTokens = chunks.length;
    const inputTokens = countWords(messages);
    const last = chunks[chunks.length - 1] as AIMessageChunk;
    last.usage = r.usage ?? { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
    last.finish_reason = toolCalls.length > 0 ? "tool_calls" : "stop";
    last.chunk_position = "last";
    if (r.id !== undefined) for (const c of chunks) c.id = r.id;
    return chunks;
  }
}
