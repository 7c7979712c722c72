/**
 * Cross-origin requests against a real hub process: a page of another site
 * can neither call the REST API (not even a "simple" POST that CORS would only
 * hide the answer of) nor open a WebSocket, unless its origin is configured;
 * same-origin pages (the web app at `/`) and clients without `Origin` pass; a
 * loopback hub refuses a foreign `Host` (DNS rebinding).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { HubProcess } from "../../support/hub-process.ts";

const ALLOWED = "https://app.example.com";
let hub: HubProcess;

beforeAll(async () => {
  hub = await HubProcess.start({ env: { SWITCHBOARD_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:5173` } });
});
afterAll(async () => {
  await hub.stop();
});

/** The upgrade's outcome: "open", or the HTTP status it was refused with. */
function upgrade(path: string, headers: Record<string, string>): Promise<"open" | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(hub.url.replace(/^http/, "ws") + path, { headers });
    ws.once("open", () => {
      ws.close();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("error", () => {});
  });
}

/** A GET with any Host header (fetch does not let one be set). */
function get(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${hub.url}${path}`, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.end();
  });
}

describe("origins", () => {
  it("refuses REST calls from another site's page, without CORS headers", async () => {
    const res = await fetch(`${hub.url}/assistants`, { headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(await res.json()).toMatchObject({ error: "permission_denied", message: expect.stringContaining("SWITCHBOARD_ALLOWED_ORIGINS") });
  });

  it("refuses a cross-site simple POST before it runs: no thread, no run", async () => {
    const body = JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: "csrf" } } });
    const res = await fetch(`${hub.url}/threads/csrf-1/commands`, { method: "POST", headers: { origin: "https://evil.example", "content-type": "text/plain" }, body });
    expect(res.status).toBe(403);
    expect((await fetch(`${hub.url}/threads/csrf-1`)).status).toBe(404);
    expect(await hub.metric('switchboard_runs{status="running"}')).toBe(0);
  });

  it("refuses a WebSocket from another site's page, and a null origin", async () => {
    expect(await upgrade("/ws", { origin: "https://evil.example" })).toBe(403);
    expect(await upgrade("/threads/x/stream/events", { origin: "null" })).toBe(403);
  });

  it("lets same-origin pages and clients without Origin in", async () => {
    expect((await fetch(`${hub.url}/assistants`, { headers: { origin: hub.url } })).status).toBe(200);
    expect((await fetch(`${hub.url}/assistants`)).status).toBe(200);
    expect(await upgrade("/ws", { origin: hub.url })).toBe("open");
    expect(await upgrade("/ws", {})).toBe("open");
  });

  it("lets configured origins in, with CORS headers and preflight", async () => {
    const res = await fetch(`${hub.url}/assistants`, { headers: { origin: ALLOWED } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const preflight = await fetch(`${hub.url}/threads/x/commands`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(await upgrade("/ws", { origin: ALLOWED })).toBe("open");
  });

  it("a loopback hub refuses a foreign Host (a DNS-rebinding page), HTTP and WebSocket", async () => {
    const port = new URL(hub.url).port;
    expect(await get("/assistants", { host: `rebind.evil.example:${port}` })).toBe(403);
    expect(await upgrade("/ws", { host: `rebind.evil.example:${port}` })).toBe(403);
    expect(await get("/health", { host: `localhost:${port}` })).toBe(200);
    expect(await get("/health", { host: `127.0.0.1:${port}` })).toBe(200);
  });
});
