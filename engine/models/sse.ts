/**
 * A Server-Sent Events decoder (WHATWG HTML §9.2.6) for streamed model
 * responses. Network chunks split events, lines and even CRLF pairs anywhere,
 * so the decoder is fed text as it arrives and returns whole events only.
 */
import { MODEL_ERROR_CODES, ModelError } from "./errors.ts";

export interface SSEEvent {
  /** "message" unless the server named the event. */
  event: string;
  /** The data lines of the event, joined with "\n". */
  data: string;
  id?: string;
}

/** Far above any real model event; stops a server that never ends a line from filling memory. */
const DEFAULT_MAX_LINE = 8 * 1024 * 1024;

export class SSEDecoder {
  #buffer = "";
  #started = false;
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  readonly #maxLine: number;

  constructor(options: { maxLineLength?: number } = {}) {
    this.#maxLine = options.maxLineLength ?? DEFAULT_MAX_LINE;
  }

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SSEEvent[] {
    let buffer = this.#buffer + text;
    if (!this.#started && buffer !== "") {
      this.#started = true;
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
    }
    const events: SSEEvent[] = [];
    const terminator = /\r\n|\r|\n/g;
    let lineStart = 0;
    for (let m = terminator.exec(buffer); m !== null; m = terminator.exec(buffer)) {
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (m[0] === "\r" && m.index === buffer.length - 1) break;
      this.#line(buffer.slice(lineStart, m.index), events);
      lineStart = m.index + m[0].length;
    }
    this.#buffer = buffer.slice(lineStart);
    if (this.#buffer.length > this.#maxLine) {
      throw new ModelError(MODEL_ERROR_CODES.MALFORMED_EVENT, `an event stream line is longer than ${this.#maxLine} characters`);
    }
    return events;
  }

  /**
   * Ends the stream. An unterminated last line is dropped, as the spec says;
   * an event whose lines all arrived but whose blank line did not is still
   * returned, because some servers close right after their last `data:` line.
   */
  end(): SSEEvent[] {
    const events: SSEEvent[] = [];
    // A line held back for a possible CRLF was complete after all.
    if (this.#buffer.endsWith("\r")) this.#line(this.#buffer.slice(0, -1), events);
    this.#buffer = "";
    this.#dispatch(events);
    return events;
  }

  #line(line: string, events: SSEEvent[]): void {
    if (line === "") {
      this.#dispatch(events);
      return;
    }
    if (line.startsWith(":")) return; // a comment (servers send them as keep-alives)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      default:
        break; // "retry" and unknown fields do not concern a one-shot response
    }
  }

  #dispatch(events: SSEEvent[]): void {
    if (this.#data.length > 0) {
      const event: SSEEvent = { event: this.#event || "message", data: this.#data.join("\n") };
      if (this.#id !== undefined) event.id = this.#id;
      events.push(event);
    }
    this.#data = [];
    this.#event = "";
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
