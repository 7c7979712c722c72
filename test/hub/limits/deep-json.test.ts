/**
 * Issue 14, item 8, against a real hub process: JSON nested past
 * `maxJsonDepth` is refused with `invalid_argument` (not retryable) before
 * any work, on every transport — a WebSocket frame, `POST /commands`, REST,
 * SSE and the LangGraph API — and nothing is half done: `POST /threads` with
 * deep metadata creates no thread.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../../hub/index.ts";
import { isRetryable } from "../../../hub/protocol/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket } from "../../support/hub.ts";

let hub: HubProcess;
beforeAll(async () => {
  hub = await HubProcess.start({ entry: "child" });
});
afterAll(async () => {
  await hub.stop();
});

/** A JSON value nested `depth` arrays deep, as text. */
const deep = (depth: number): string => `${"[".repeat(depth)}1${"]".repeat(depth)}`;
const DEEP = deep(5_000);
const post = (path: string, body: string) => fetch(`${hub.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("deeply nested JSON", () => {
  it("POST /threads: 400 invalid_argument, and no thread is created", async () => {
    const res = await post("/threads", `{"thread_id":"t-deep","metadata":{"x":${DEEP}}}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body).toMatchObject({ error: "invalid_argument", message: expect.stringContaining(`more than ${DEFAULT_LIMITS.maxJsonDepth} levels`) });
    expect(isRetryable("invalid_argument")).toBe(false);
    expect((await fetch(`${hub.url}/threads/t-deep`)).status).toBe(404);
  });

  it("a WebSocket frame and POST /commands: invalid_argument; the socket lives; no run starts", async () => {
    const command = `{"id":7,"method":"run.start","params":{"assistant_id":"review","input":{"topic":${DEEP}}}}`;
    const socket = await TestSocket.open(`${hub.wsUrl}/threads/t-deep-ws/stream/events`);
    socket.sendRaw(command);
    expect(await socket.responseTo(null)).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining("levels deep") });
    expect(await socket.request("state.get", { namespace: [] })).toMatchObject({ type: "success" });
    const res = await post("/threads/t-deep-ws/commands", command);
    expect(await res.json()).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining("levels deep") });
    expect(await (await fetch(`${hub.url}/threads/t-deep-ws/runs`)).json()).toEqual([]);
  });

  it("an answer, an SSE filter and a LangGraph run: 400 invalid_argument", async () => {
    for (const [path, body] of [
      ["/reviews/some-interrupt/answer", `{"response":${DEEP}}`],
      ["/threads/t-deep-sse/stream/events", `{"channels":["values"],"namespaces":${DEEP}}`],
      ["/threads/t-deep-lg/runs", `{"assistant_id":"review","input":{"topic":${DEEP}},"if_not_exists":"create"}`],
    ] as const) {
      const res = await post(path, body);
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ error: "invalid_argument", message: expect.stringContaining("levels deep") });
    }
    expect((await fetch(`${hub.url}/threads/t-deep-sse`)).status).toBe(404);
    expect((await fetch(`${hub.url}/threads/t-deep-lg`)).status).toBe(404);
  });

  it("nesting within the limit is accepted, and brackets inside strings do not count", async () => {
    const within = deep(DEFAULT_LIMITS.maxJsonDepth - 3);
    expect((await post("/threads", `{"thread_id":"t-nested-ok","metadata":{"x":${within},"s":"${"[".repeat(500)}"}}`)).status).toBe(200);
  });
});
