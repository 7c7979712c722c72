/**
 * OpenAICompatibleChatModel: streams from any server that speaks the Chat
 * Completions API (OpenAI, vLLM, Ollama, LM Studio, OpenRouter, DeepSeek...).
 * It always asks for a stream with usage, reads the SSE body as it arrives,
 * and fails with a typed ModelError for each way a response can go wrong.
 */
import type { AIMessageChunk, Message, UsageMetadata } from "../messages/index.ts";
import { BaseChatModel } from "./base.ts";
import type { BaseChatModelFields, ModelRequest } from "./base.ts";
import { MODEL_ERROR_CODES, ModelError } from "./errors.ts";
import type { ModelErrorCode } from "./errors.ts";
import { errorBodyMessage, messagesToOpenAI, readOpenAIChunk, toolChoiceToOpenAI, toolsToOpenAI } from "./openai-format.ts";
import { readSSE } from "./sse.ts";
import type { SSEEvent } from "./sse.ts";

export interface OpenAICompatibleChatModelFields extends BaseChatModelFields {
  /** e.g. "https://api.openai.com/v1" or "http://localhost:11434/v1". */
  baseURL: string;
  apiKey?: string;
  /** The provider's model id, sent as `model`. */
  model: string;
  headers?: Record<string, string>;
  temperature?: number;
  maxTokens?: number;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Reported in the messages stream; defaults to `model`. */
  name?: string;
}

function statusCode(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return MODEL_ERROR_CODES.UNAUTHORIZED;
  if (status === 429) return MODEL_ERROR_CODES.RATE_LIMITED;
  if (status >= 500) return MODEL_ERROR_CODES.SERVER_ERROR;
  return MODEL_ERROR_CODES.BAD_REQUEST;
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export class OpenAICompatibleChatModel extends BaseChatModel {
  readonly name: string;
  readonly model: string;
  readonly #url: string;
  readonly #fields: OpenAICompatibleChatModelFields;
  readonly #fetch: typeof fetch;

  constructor(fields: OpenAICompatibleChatModelFields) {
    super(fields);
    if (!fields.model) throw new ModelError(MODEL_ERROR_CODES.INVALID_CONFIG, "OpenAICompatibleChatModel needs a model");
    if (!URL.canParse(fields.baseURL)) {
      throw new ModelError(MODEL_ERROR_CODES.INVALID_CONFIG, `baseURL ${JSON.stringify(fields.baseURL)} is not a URL`);
    }
    this.model = fields.model;
    this.name = fields.name ?? fields.model;
    this.#url = `${fields.baseURL.replace(/\/+$/, "")}/chat/completions`;
    this.#fields = fields;
    this.#fetch = fields.fetch ?? globalThis.fetch;
  }

  #body(messages: readonly Message[], request: ModelRequest): Record<string, unknown> {
    const f = this.#fields;
    const body: Record<string, unknown> = {
      model: this.model,
      messages: messagesToOpenAI(messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (f.temperature !== undefined) body.temperature = f.temperature;
    if (f.maxTokens !== undefined) body.max_tokens = f.maxTokens;
    if (request.tools.length > 0) {
      body.tools = toolsToOpenAI(request.tools);
      if (request.toolChoice !== undefined) body.tool_choice = toolChoiceToOpenAI(request.toolChoice);
    }
    return body;
  }

  async #post(messages: readonly Message[], request: ModelRequest, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...this.#fields.headers,
    };
    if (this.#fields.apiKey) headers.authorization = `Bearer ${this.#fields.apiKey}`;
    const init: RequestInit = { method: "POST", headers, body: JSON.stringify(this.#body(messages, request)), signal };
    try {
      return await this.#fetch(this.#url, init);
    } catch (error) {
      if (signal.aborted) throw error;
      const detail = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      throw new ModelError(MODEL_ERROR_CODES.NETWORK_ERROR, `${this.name}: cannot reach ${this.#url}: ${detail}`, { cause: error });
    }
  }

  async #httpError(response: Response): Promise<ModelError> {
    const body = await response.text().catch(() => "");
    const reason = errorBodyMessage(body) ?? response.statusText;
    const details: { status: number; retryAfterMs?: number } = { status: response.status };
    const wait = retryAfterMs(response.headers);
    if (wait !== undefined) details.retryAfterMs = wait;
    return new ModelError(statusCode(response.status), `${this.name}: HTTP ${response.status}${reason ? `: ${reason}` : ""}`, details);
  }

  protected async *_stream(messages: readonly Message[], request: ModelRequest): AsyncGenerator<AIMessageChunk> {
    // fetch keeps its abort listener on the signal until the request is
    // garbage-collected; a run-wide signal shared by many calls would collect
    // them. fetch gets a signal of its own, linked for this call only.
    const local = new AbortController();
    const forward = (): void => local.abort(request.signal?.reason);
    if (request.signal?.aborted) forward();
    else request.signal?.addEventListener("abort", forward, { once: true });
    try {
      yield* this.#read(messages, request, local.signal);
    } finally {
      request.signal?.removeEventListener("abort", forward);
    }
  }

  async *#read(messages: readonly Message[], request: ModelRequest, signal: AbortSignal): AsyncGenerator<AIMessageChunk> {
    const response = await this.#post(messages, request, signal);
    if (!response.ok) throw await this.#httpError(response);
    const type = response.headers.get("content-type") ?? "";
    if (!/^text\/event-stream\b/i.test(type) || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new ModelError(
        MODEL_ERROR_CODES.INVALID_RESPONSE,
        `${this.name}: expected an event stream, got ${type ? `content type "${type}"` : "no body"}`,
        { status: response.status },
      );
    }

    // Finish reason and usage come last, often in separate chunks; they are
    // gathered and sent as one final chunk. Usage is replaced, not summed:
    // some servers repeat the running total on every chunk.
    let finishReason: string | undefined;
    let usage: UsageMetadata | undefined;
    let model: string | undefined;
    let id: string | undefined;
    let complete = false;

    const events = readSSE(response.body);
    try {
      for (;;) {
        let next: IteratorResult<SSEEvent>;
        try {
          next = await events.next();
        } catch (error) {
          if (signal.aborted || error instanceof ModelError) throw error;
          throw new ModelError(MODEL_ERROR_CODES.STREAM_INCOMPLETE, `${this.name}: the stream broke: ${(error as Error).message}`, {
            cause: error,
          });
        }
        if (next.done) break;
        const event = next.value;
        if (event.data === "[DONE]") {
          complete = true;
          break;
        }
        if (event.event === "error") throw this.#streamError(event.data);
        if (event.event !== "message") continue; // named events are not part of the Chat Completions stream
        let json: unknown;
        try {
          json = JSON.parse(event.data);
        } catch {
          throw new ModelError(MODEL_ERROR_CODES.MALFORMED_EVENT, `${this.name}: a data line is not JSON: ${event.data.slice(0, 200)}`);
        }
        if (typeof json === "object" && json !== null && "error" in json && !("choices" in json)) {
          throw this.#streamError(event.data);
        }
        const parts = readOpenAIChunk(json);
        id ??= parts.id;
        model = parts.model ?? model;
        usage = parts.usage ?? usage;
        finishReason = parts.finishReason ?? finishReason;
        if (parts.delta) yield parts.delta;
      }
    } finally {
      await events.return(undefined);
    }
    // Some servers close after the finish chunk without [DONE]; that response is whole.
    if (!complete && finishReason === undefined) {
      throw new ModelError(MODEL_ERROR_CODES.STREAM_INCOMPLETE, `${this.name}: the stream ended before the response was finished`);
    }
    const last: AIMessageChunk = { type: "ai_chunk", content: "", chunk_position: "last" };
    if (id) last.id = id;
    if (finishReason) last.finish_reason = finishReason;
    if (usage) last.usage = usage;
    if (model) last.model = model;
    yield last;
  }

  #streamError(data: string): ModelError {
    const reason = errorBodyMessage(data) ?? "unknown error";
    return new ModelError(MODEL_ERROR_CODES.PROVIDER_ERROR, `${this.name}: the server reported an error mid-stream: ${reason}`);
  }
}
