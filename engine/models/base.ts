/**
 * BaseChatModel: what every provider shares. A provider implements only
 * `_stream()`; stream() and invoke() both run it (seed 000 §2.4–2.6), hand
 * every chunk to the run's `messages` observer when there is one, stamp all
 * chunks of a response with one id, honour the call's AbortSignal, and turn
 * failures into ModelErrors. invoke() always streams underneath, so a node
 * that calls invoke() streams tokens to subscribers with no extra wiring.
 */
import { nanoid } from "nanoid";
import { ChunkMerger } from "../messages/chunks.ts";
import type { AIMessage, AIMessageChunk, Message } from "../messages/index.ts";
import { detachedFromTask, observeModelCall } from "../runtime/hooks.ts";
import { MODEL_ERROR_CODES, ModelAbortError, ModelError, isAbortError, isGraphInterruptLike } from "./errors.ts";
import type { ChatModel, ModelCallOptions, Tool, ToolChoice } from "./types.ts";

/** What a provider's `_stream()` receives besides the messages. */
export interface ModelRequest {
  /** Tools bound with bindTools(); empty when none. */
  tools: readonly Tool[];
  toolChoice?: ToolChoice;
  /** Providers pass it on (to fetch, timers) so work stops promptly. */
  signal?: AbortSignal;
  /** Model tags and call tags, merged. */
  tags: readonly string[];
}

export interface BaseChatModelFields {
  /** Tags added to every call of this model (e.g. ["nostream"]). */
  tags?: readonly string[];
}

/**
 * Iterates `source` until it ends or `signal` fires. On abort it rejects at
 * once rather than waiting for the provider's pending read, which a stuck
 * connection might never settle.
 */
async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  if (signal.aborted) throw new ModelAbortError(signal.reason);
  const it = source[Symbol.asyncIterator]();
  let rejectAborted: (error: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
  aborted.catch(() => {});
  const onAbort = (): void => rejectAborted(new ModelAbortError(signal.reason));
  signal.addEventListener("abort", onAbort, { once: true });
  let pending = false;
  let finished = false;
  try {
    for (;;) {
      if (signal.aborted) throw new ModelAbortError(signal.reason);
      pending = true;
      const next = await Promise.race([it.next(), aborted]);
      pending = false;
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!finished) {
      // return() queues behind a pending next(); awaiting it could hang.
      const closing = Promise.resolve(it.return?.()).catch(() => undefined);
      if (!pending) await closing;
    }
  }
}

/** One model call once started: its provider stream, its chunk stamping and observer, its error mapping. */
interface OpenCall {
  source: AsyncIterator<AIMessageChunk>;
  emit: (chunk: AIMessageChunk) => AIMessageChunk;
  wrap: (error: unknown) => unknown;
}

export abstract class BaseChatModel implements ChatModel {
  abstract readonly name: string;
  readonly tags: readonly string[];

  constructor(fields: BaseChatModelFields = {}) {
    this.tags = [...(fields.tags ?? [])];
  }

  /** The provider's stream of raw chunks for one response. */
  protected abstract _stream(messages: readonly Message[], request: ModelRequest): AsyncIterable<AIMessageChunk>;

  stream(messages: readonly Message[], options: ModelCallOptions = {}): AsyncGenerator<AIMessageChunk> {
    return this.#run(messages, options, []);
  }

  invoke(messages: readonly Message[], options: ModelCallOptions = {}): Promise<AIMessage> {
    return this.#invoke(messages, options, []);
  }

  bindTools(tools: readonly Tool[]): ChatModel {
    const bound = [...tools];
    const names = new Set<string>();
    for (const t of bound) {
      if (names.has(t.name)) throw new ModelError(MODEL_ERROR_CODES.INVALID_CONFIG, `two tools are named "${t.name}"`);
      names.add(t.name);
    }
    // A view of this model, not a copy: state such as a scripted model's
    // position stays shared, as with LangChain's RunnableBinding.
    return {
      name: this.name,
      stream: (messages, options = {}) => this.#run(messages, options, bound),
      invoke: (messages, options = {}) => this.#invoke(messages, options, bound),
      bindTools: (next) => this.bindTools(next),
    };
  }

  #invoke(messages: readonly Message[], options: ModelCallOptions, tools: readonly Tool[]): Promise<AIMessage> {
    let call: OpenCall;
    try {
      call = this.#open(messages, options, tools);
    } catch (error) {
      return Promise.reject(error);
    }
    // The observer is taken (in #open, inside the task); the provider's stream
    // needs nothing more from the task, so its per-chunk awaits run detached
    // and their promises are not tagged with it (runtime/scope.ts).
    return detachedFromTask(() => this.#collect(call));
  }

  async #collect(call: OpenCall): Promise<AIMessage> {
    // The same call as #run, without a generator in between: invoke() is the
    // common path of nodes and pays no extra promise per chunk.
    const merger = new ChunkMerger();
    for (;;) {
      let next: IteratorResult<AIMessageChunk>;
      try {
        next = await call.source.next();
      } catch (error) {
        throw call.wrap(error);
      }
      if (next.done) break;
      merger.add(call.emit(next.value));
    }
    const message = merger.message();
    return message.id ? message : { ...message, id: nanoid() };
  }

  async *#run(messages: readonly Message[], options: ModelCallOptions, tools: readonly Tool[]): AsyncGenerator<AIMessageChunk> {
    const call = this.#open(messages, options, tools);
    let done = false;
    try {
      for (;;) {
        let next: IteratorResult<AIMessageChunk>;
        try {
          next = await call.source.next();
        } catch (error) {
          done = true;
          throw call.wrap(error);
        }
        if (next.done) {
          done = true;
          return;
        }
        yield call.emit(next.value);
      }
    } finally {
      // The caller stopped early: let the provider close its connection.
      if (!done) await call.source.return?.();
    }
  }

  /** Starts one call: the provider stream, its observer, id stamping and error mapping. */
  #open(
    messages: readonly Message[],
    options: ModelCallOptions,
    tools: readonly Tool[],
  ): OpenCall {
    const { signal } = options;
    if (signal?.aborted) throw new ModelAbortError(signal.reason);
    const tags = [...new Set([...this.tags, ...(options.tags ?? [])])];
    // Once per call, at its start: the engine decides here whether anybody listens.
    const observer = observeModelCall({ tags, model: this.name });
    const request: ModelRequest = { tools, tags };
    if (options.toolChoice !== undefined) request.toolChoice = options.toolChoice;
    if (signal) request.signal = signal;
    const wrap = (error: unknown) => this.#wrap(error, signal);
    let source: AsyncIterator<AIMessageChunk>;
    try {
      const raw = this._stream(messages, request);
      source = (signal ? abortable(raw, signal) : raw)[Symbol.asyncIterator]();
    } catch (error) {
      throw wrap(error);
    }
    let id: string | undefined;
    const emit = (value: AIMessageChunk): AIMessageChunk => {
      // One id for every chunk of the response, so subscribers can group the
      // chunks and match them to the message invoke() returns.
      id ??= value.id || nanoid();
      // Object.assign, not a spread plus a new key: on Node 20 the spread gave every
      // chunk its own hidden class, which made each later read ~90x slower (bench profile).
      const chunk = value.id === id ? value : Object.assign({}, value, { id });
      observer?.onChunk(chunk);
      return chunk;
    };
    return { source, emit, wrap };
  }

  #wrap(error: unknown, signal: AbortSignal | undefined): unknown {
    if (isGraphInterruptLike(error)) return error;
    if (signal?.aborted) return error instanceof ModelAbortError ? error : new ModelAbortError(signal.reason);
    if (error instanceof ModelError) return error;
    if (isAbortError(error)) return new ModelAbortError(error);
    const message = error instanceof Error ? error.message : String(error);
    return new ModelError(MODEL_ERROR_CODES.PROVIDER_ERROR, `${this.name}: ${message}`, { cause: error });
  }
}
