/**
 * OpenAICompatibleChatModel against a real local HTTP server that streams
 * recorded-style SSE: no mocked fetch. Covers text, reasoning, tool calls
 * split across many TCP writes, usage, HTTP errors, broken streams and abort.
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { aiMessage, humanMessage, systemMessage, toolMessage } from "../../../engine/messages/index.ts";
import type { AIMessageChunk } from "../../../engine/messages/index.ts";
import { ModelError, OpenAICompatibleChatModel, tool } from "../../../engine/models/index.ts";
import type { ChatServer, Handler } from "./chat-server.ts";
import { completionChunk, DONE, event, jsonError, startChatServer, startEventStream, usageChunk, writeInPieces } from "./chat-server.ts";
import { collect, recordingHost } from "./hook-host.ts";

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Handler, fields: { apiKey?: string; temperature?: number; maxTokens?: number; headers?: Record<string, string> } = {}) {
  server = await startChatServer(handler);
  return new OpenAICompatibleChatModel({ baseURL: `${server.baseURL}/`, model: "gpt-test", ...fields });
}

const hi = [humanMessage("hi")];

const textStream: Handler = async (res) => {
  startEventStream(res);
  res.write(": OPENROUTER PROCESSING\n\n");
  res.write(event(completionChunk({ role: "assistant", content: "" })));
  for (const piece of ["Hel", "lo", " 你好", "", "0"]) res.write(event(completionChunk({ content: piece })));
  res.write(event(completionChunk({}, "stop")));
  res.write(event(usageChunk(9, 5)));
  res.end(DONE);
};

describe("streaming a response", () => {
  it("streams text chunks and a last chunk with finish reason, usage and model", async () => {
    const model = await serve(textStream);
    const chunks = await collect(model.stream(hi));
    expect(chunks.map((c) => c.content)).toEqual(["Hel", "lo", " 你好", "0", ""]);
    expect(chunks.at(-1)).toEqual({
      type: "ai_chunk",
      id: "chatcmpl-9x",
      content: "",
      chunk_position: "last",
      finish_reason: "stop",
      usage: { input_tokens: 9, output_tokens: 5, total_tokens: 14 },
      model: "gpt-test-2025",
    });
    expect(chunks.every((c) => c.id === "chatcmpl-9x")).toBe(true);
  });

  it("invoke() returns the merged message and streams through the run's observer", async () => {
    const model = await serve(textStream);
    const rec = recordingHost();
    const controller = new AbortController();
    const message = await rec.run(() => model.invoke(hi, { tags: ["t"], signal: controller.signal }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(message).toEqual({
      type: "ai",
      id: "chatcmpl-9x",
      content: "Hello 你好0",
      tool_calls: [],
      usage: { input_tokens: 9, output_tokens: 5, total_tokens: 14 },
      response_metadata: { finish_reason: "stop", model: "gpt-test-2025" },
    });
    expect(rec.modelCalls).toEqual([{ tags: ["t"], model: "gpt-test" }]);
    expect(rec.chunks.map((c) => (c.chunk as AIMessageChunk).content)).toEqual(["Hel", "lo", " 你好", "0", ""]);
  });

  it("sends the request in the Chat Completions format", async () => {
    const search = tool(() => "", { name: "search", description: "Search", schema: { type: "object", properties: { q: { type: "string" } } } });
    const model = await serve(textStream, { apiKey: "sk-test", temperature: 0, maxTokens: 0, headers: { "x-team": "qa" } });
    await model.bindTools([search]).invoke(
      [
        systemMessage("be brief"),
        humanMessage("find x"),
        aiMessage("", { tool_calls: [{ id: "c1", name: "search", args: { q: "x" } }] }),
        toolMessage("found", { tool_call_id: "c1" }),
      ],
      { toolChoice: "required" },
    );
    const [request] = server?.requests ?? [];
    expect(request).toMatchObject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json", accept: "text/event-stream", "x-team": "qa" },
    });
    expect(request?.body).toEqual({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      max_tokens: 0,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "find x" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } }] },
        { role: "tool", content: "found", tool_call_id: "c1" },
      ],
      tools: [{ type: "function", function: { name: "search", description: "Search", parameters: search.schema } }],
      tool_choice: "required",
    });
  });

  it("leaves out the key, tools and sampling options when not given", async () => {
    const model = await serve(textStream);
    await model.invoke(hi, { toolChoice: "auto" });
    const [request] = server?.requests ?? [];
    expect(request?.headers.authorization).toBeUndefined();
    expect(Object.keys(request?.body as object).sort()).toEqual(["messages", "model", "stream", "stream_options"]);
  });

  it("reads reasoning_content and reasoning deltas", async () => {
    const model = await serve((res) => {
      startEventStream(res);
      res.write(event(completionChunk({ role: "assistant", reasoning_content: "Let me " })));
      res.write(event(completionChunk({ reasoning: "think." })));
      res.write(event(completionChunk({ content: "4", reasoning_content: null })));
      res.write(event(completionChunk({}, "stop")));
      res.end(DONE);
    });
    const message = await model.invoke(hi);
    expect(message).toMatchObject({ content: "4", reasoning: "Let me think." });
  });

  it("assembles a tool call split across many fragments and TCP writes, with CRLF and multi-line data", async () => {
    const args = '{"city": "Zürich", "units": "metric", "days": 0, "tags": ["a", "b"]}';
    let body = event(
      completionChunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_W1", type: "function", function: { name: "weather", arguments: "" } }] }),
    );
    for (let i = 0; i < args.length; i += 4) {
      body += event(completionChunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 4) } }] }));
    }
    body += event(completionChunk({ tool_calls: [{ index: 1, id: "call_C2", type: "function", function: { name: "clock", arguments: "{}" } }] }));
    // One event as two data lines: joined with "\n", which JSON allows.
    body += `data: ${JSON.stringify(completionChunk({}, "tool_calls")).replace('"choices":', '"choices":\ndata: ')}\n\n`;
    body += event(usageChunk(20, 31)) + DONE;
    // Every request gets the same response, written 7 bytes per socket write
    // (splitting "\r\n" pairs, UTF-8 sequences and JSON anywhere).
    const model = await serve(async (res) => {
      startEventStream(res);
      await writeInPieces(res, body.replaceAll("\n", "\r\n"), 7);
      res.end();
    });
    const weather = tool(() => "", { name: "weather", description: "", schema: { type: "object" } });
    const bound = model.bindTools([weather]);

    const chunks = await collect(bound.stream(hi));
    const fragments = chunks.flatMap((c) => c.tool_call_chunks ?? []);
    expect(fragments.length).toBeGreaterThan(15);
    expect(fragments[0]).toEqual({ index: 0, id: "call_W1", name: "weather", args: "" });
    expect(fragments.filter((f) => f.index === 0).map((f) => f.args).join("")).toBe(args);

    const message = await bound.invoke(hi);
    expect(message.tool_calls).toEqual([
      { id: "call_W1", name: "weather", args: { city: "Zürich", units: "metric", days: 0, tags: ["a", "b"] } },
      { id: "call_C2", name: "clock", args: {} },
    ]);
    expect(message).toMatchObject({
      usage: { input_tokens: 20, output_tokens: 31, total_tokens: 51 },
      response_metadata: { finish_reason: "tool_calls" },
    });
    expect(server?.requests).toHaveLength(2);
  });

  it("accepts a stream that ends after its finish reason without [DONE]", async () => {
    const model = await serve((res) => {
      startEventStream(res);
      res.write(event(completionChunk({ content: "ok" })));
      res.end(event(completionChunk({}, "length")));
    });
    expect(await model.invoke(hi)).toMatchObject({ content: "ok", response_metadata: { finish_reason: "length" } });
  });
});

async function failure(model: OpenAICompatibleChatModel): Promise<ModelError> {
  const error = await model.invoke(hi).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe("HTTP errors", () => {
  it.each<[number, unknown, Record<string, string>, Record<string, unknown>, RegExp]>([
    [
      401,
      { error: { message: "Incorrect API key provided: sk-bad.", type: "invalid_request_error", code: "invalid_api_key" } },
      {},
      { code: "UNAUTHORIZED", status: 401, retryable: false },
      /HTTP 401: Incorrect API key provided: sk-bad\./,
    ],
    [
      429,
      { error: { message: "Rate limit reached for gpt-test", type: "requests", code: "rate_limit_exceeded" } },
      { "retry-after": "2" },
      { code: "RATE_LIMITED", status: 429, retryable: true, retryAfterMs: 2000 },
      /HTTP 429: Rate limit reached/,
    ],
    [
      500,
      { error: { message: "The server had an error while processing your request." } },
      { "retry-after-ms": "150" },
      { code: "SERVER_ERROR", status: 500, retryable: true, retryAfterMs: 150 },
      /HTTP 500: The server had an error/,
    ],
    [503, "upstream connect error", {}, { code: "SERVER_ERROR", status: 503 }, /HTTP 503: upstream connect error/],
    [400, { message: "messages: field required" }, {}, { code: "BAD_REQUEST", retryable: false }, /HTTP 400: messages: field required/],
    [404, "", {}, { code: "BAD_REQUEST", status: 404 }, /HTTP 404: Not Found/],
  ])("maps HTTP %i to a typed error with the body's message", async (status, body, headers, fields, message) => {
    const model = await serve((res) => jsonError(res, status, body, headers));
    const error = await failure(model);
    expect(error).toMatchObject(fields);
    expect(error.message).toMatch(message);
  });

  it("refuses a response that is not an event stream", async () => {
    const model = await serve((res) => jsonError(res, 200, { choices: [{ message: { content: "hi" } }] }));
    const error = await failure(model);
    expect(error).toMatchObject({ code: "INVALID_RESPONSE" });
    expect(error.message).toMatch(/content type "application\/json"/);
  });

  it("reports a server that cannot be reached as a retryable network error", async () => {
    const gone = await startChatServer(() => {});
    await gone.close();
    const model = new OpenAICompatibleChatModel({ baseURL: gone.baseURL, model: "m" });
    expect(await failure(model)).toMatchObject({ code: "NETWORK_ERROR", retryable: true });
  });

  it.each([
    ["no model", { baseURL: "http://x/v1", model: "" }],
    ["a bad URL", { baseURL: "not a url", model: "m" }],
  ])("refuses to construct with %s", (_label, fields) => {
    expect(() => new OpenAICompatibleChatModel(fields)).toThrow(expect.objectContaining({ code: "INVALID_CONFIG" }));
  });
});

describe("broken streams", () => {
  it("fails on a data line that is not JSON", async () => {
    const model = await serve((res) => {
      startEventStream(res);
      res.write(event(completionChunk({ content: "a" })));
      res.write('data: {"id":"chatcmpl-9x","choices":[{"delta":{"content":"b"\n\n');
      res.end(DONE);
    });
    const error = await failure(model);
    expect(error).toMatchObject({ code: "MALFORMED_EVENT", retryable: false });
    expect(error.message).toMatch(/a data line is not JSON: \{"id":"chatcmpl-9x"/);
  });

  it("fails when the stream ends before [DONE] and before a finish reason", async () => {
    const model = await serve((res) => {
      startEventStream(res);
      res.write(event(completionChunk({ content: "par" })));
      res.end(event(completionChunk({ content: "tial" })));
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of model.stream(hi)) seen.push(chunk.content);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["par", "tial"]);
    expect(error).toMatchObject({ code: "STREAM_INCOMPLETE", retryable: true });
  });

  it("fails when the connection drops mid-stream", async () => {
    const model = await serve(async (res) => {
      startEventStream(res);
      res.write(event(completionChunk({ content: "par" })));
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.socket?.destroy();
    });
    expect(await failure(model)).toMatchObject({ code: "STREAM_INCOMPLETE", retryable: true });
  });

  it("fails with the provider's message when it sends an error event mid-stream", async () => {
    const model = await serve((res) => {
      startEventStream(res);
      res.write(event(completionChunk({ content: "a" })));
      res.end(event({ error: { message: "Model overloaded", type: "server_error" } }));
    });
    const error = await failure(model);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR" });
    expect(error.message).toMatch(/Model overloaded/);
  });
});

describe("stopping early", () => {
  /** Streams one chunk, then keeps the response open like a slow model. */
  const slow: Handler = (res) => {
    startEventStream(res);
    res.write(event(completionChunk({ content: "first" })));
  };

  it("aborts mid-stream: the call rejects with AbortError and the server sees the connection close", async () => {
    const model = await serve(slow);
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of model.stream(hi, { signal: controller.signal })) {
        seen.push(chunk.content);
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["first"]);
    expect(error).toMatchObject({ name: "AbortError", code: "ABORTED" });
    await vi.waitFor(() => expect(server?.cutByClient).toBe(1));
  });

  it("aborts invoke() while it waits for the next chunk", async () => {
    const model = await serve(slow);
    const controller = new AbortController();
    const pending = model.invoke(hi, { signal: controller.signal });
    await vi.waitFor(() => expect(server?.requests).toHaveLength(1));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await vi.waitFor(() => expect(server?.cutByClient).toBe(1));
  });

  it("closes the connection when the caller stops reading", async () => {
    const model = await serve(slow);
    for await (const chunk of model.stream(hi)) {
      expect(chunk.content).toBe("first");
      break;
    }
    await vi.waitFor(() => expect(server?.cutByClient).toBe(1));
  });
});
