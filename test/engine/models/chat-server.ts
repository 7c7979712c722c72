/**
 * A real local HTTP server (port 0) that plays recorded-style Chat
 * Completions responses, for the OpenAI-compatible model's tests.
 */
import { createServer } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type Handler = (res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

export interface ChatServer {
  baseURL: string;
  requests: ReceivedRequest[];
  /** Responses whose connection closed before the server ended them. */
  cutByClient: number;
  /** Responses that the server ended normally. */
  finished: number;
  close(): Promise<void>;
}

export async function startChatServer(handler: Handler): Promise<ChatServer> {
  const state = { requests: [] as ReceivedRequest[], cutByClient: 0, finished: 0 };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      state.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: text ? JSON.parse(text) : undefined });
      res.on("close", () => {
        if (res.writableFinished) state.finished++;
        else state.cutByClient++;
      });
      Promise.resolve(handler(res, req)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get cutByClient() {
      return state.cutByClient;
    },
    get finished() {
      return state.finished;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

// ---- recorded-style payloads -------------------------------------------------

const head = { id: "chatcmpl-9x", object: "chat.completion.chunk", created: 1_760_000_000, model: "gpt-test-2025", system_fingerprint: "fp_1" };

export function completionChunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
}

export function usageChunk(prompt: number, completion: number): Record<string, unknown> {
  return { ...head, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
}

export const event = (json: unknown): string => `data: ${JSON.stringify(json)}\n\n`;
export const DONE = "data: [DONE]\n\n";

export function startEventStream(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Writes `text` in `size`-byte pieces, one socket write each, splitting UTF-8 sequences too. */
export async function writeInPieces(res: ServerResponse, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += size) {
    res.write(bytes.subarray(i, i + size));
    await nextTurn();
  }
}

export function jsonError(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}
