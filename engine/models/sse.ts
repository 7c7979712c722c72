/**
 * Server-Sent Events of streamed model responses, decoded by
 * eventsource-parser (the WHATWG HTML §9.2.6 rules: any split of the text,
 * CR/LF/CRLF, comments). What is ours: the one-shot response's rules around
 * it — a leading BOM dropped, the last `id` carried by later events, the
 * `message` default for unnamed events, an
 * event whose blank line never came still counts when the stream ends (some
 * servers close right after their last `data:` line), unknown fields and
 * `retry` are ignored, and a bound on what the parser may buffer.
 */
import { createParser, type EventSourceParser, type ParseError } from "eventsource-parser";
import { MODEL_ERROR_CODES, ModelError } from "./errors.ts";

export interface SSEEvent {
  /** "message" unless the server named the event. */
  event: string;
  /** The data lines of the event, joined with "\n". */
  data: string;
  id?: string;
}

/** Far above any real model event; stops a server that never ends a line (or an event) from filling memory. */
const DEFAULT_MAX_BUFFERED = 8 * 1024 * 1024;

export class SSEDecoder {
  readonly #parser: EventSourceParser;
  readonly #maxBuffered: number;
  #events: SSEEvent[] = [];
  #overflow: ParseError | undefined;
  /** Whether the text so far ends at a line's end (so end() may dispatch what is pending). */
  #atLineEnd = true;
  #started = false;
  /** The last event ID: it persists across events until a later `id:` changes it. */
  #lastId: string | undefined;

  constructor(options: { maxBuffered?: number } = {}) {
    this.#maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.#parser = createParser({
      maxBufferSize: this.#maxBuffered,
      onEvent: (message) => {
        const event: SSEEvent = { event: message.event ?? "message", data: message.data };
        if (message.id !== undefined) this.#lastId = message.id;
        if (this.#lastId !== undefined) event.id = this.#lastId;
        this.#events.push(event);
      },
      onError: (error) => {
        // Unknown fields and a bad `retry` are not errors for a one-shot response.
        if (error.type === "max-buffer-size-exceeded") this.#overflow = error;
      },
    });
  }

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SSEEvent[] {
    if (text === "") return [];
    if (!this.#started) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#parser.feed(text);
    if (this.#overflow) {
      throw new ModelError(MODEL_ERROR_CODES.MALFORMED_EVENT, `an event stream line or event is longer than ${this.#maxBuffered} characters`);
    }
    this.#atLineEnd = /[\r\n]$/.test(text);
    return this.#take();
  }

  /**
   * Ends the stream. An unterminated last line is dropped with its event, as
   * the spec says; an event whose lines all arrived but whose blank line did
   * not is still returned.
   */
  end(): SSEEvent[] {
    // "\r" then "\n\n" is a CRLF and a blank line; "\n" then "\n\n" two blank lines.
    if (this.#atLineEnd && !this.#overflow) this.#parser.feed("\n\n");
    this.#parser.reset();
    return this.#take();
  }

  #take(): SSEEvent[] {
    const events = this.#events;
    this.#events = [];
    return events;
  }
}

/** Decodes a byte stream into SSE events; cancels the stream if the caller stops early. */
export async function* readSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEEvent> {
  const reader = body.getReader();
  const text = new TextDecoder();
  const sse = new SSEDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        yield* [...sse.push(text.decode()), ...sse.end()];
        return;
      }
      yield* sse.push(text.decode(value, { stream: true }));
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
