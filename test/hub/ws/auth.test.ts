/**
 * Bearer JWT at the edge: refused upgrades get a real HTTP status before the
 * socket opens; roles gate commands; tenants never see each other's threads.
 */
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { mintToken } from "../../../hub/auth/index.ts";
import { TestSocket, testHub, wsUrl } from "../../support/hub.ts";

const SECRET = "test-secret-that-is-long-enough-for-hs256!";
const ALL_ROLES = ["observer", "reviewer", "operator"];

const token = (sub: string, tenant: string, roles: string[] = ALL_ROLES) => mintToken({ sub, tenant, roles, expiresIn: "5 min" }, SECRET);
const bearer = async (sub: string, tenant: string, roles?: string[]) => ({ authorization: `Bearer ${await token(sub, tenant, roles)}` });

/** The HTTP status of a refused upgrade (or "open"). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("open", () => {
      resolve("open");
      ws.close();
    });
    ws.once("error", (error) => {
      if (!String(error.message).includes("Unexpected server response")) reject(error);
    });
  });
}

describe("auth", () => {
  it("refuses upgrades with 401/403 before the socket opens", async () => {
    const hub = await testHub({ jwtSecret: SECRET });
    const url = wsUrl(hub, "/threads/t-auth/stream/events");
    expect(await upgradeStatus(url)).toBe(401);
    expect(await upgradeStatus(url, { authorization: "Bearer not.a.jwt" })).toBe(401);
    expect(await upgradeStatus(url, await bearer("nobody", "acme", []))).toBe(403);
    expect(await upgradeStatus(url, await bearer("ann", "acme"))).toBe("open");
    expect(await upgradeStatus(`${url}?access_token=${await token("ann", "acme")}`)).toBe("open");
    expect(await upgradeStatus(wsUrl(hub, "/nowhere"), await bearer("ann", "acme"))).toBe(404);
    expect((await fetch(`${hub.url}/assistants`)).status).toBe(401);
    expect((await fetch(`${hub.url}/health`)).status).toBe(200);
  });

  it("roles gate commands: an observer may watch but not start runs", async () => {
    const hub = await testHub({ jwtSecret: SECRET });
    // An observer creates no thread by watching: an operator made this one.
    await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...(await bearer("ann", "acme")), "content-type": "application/json" }, body: JSON.stringify({ thread_id: "t-roles" }) });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-roles/stream/events"), { headers: await bearer("olga", "acme", ["observer"]) });
    expect((await socket.request("subscription.subscribe", { channels: ["lifecycle"] })).type).toBe("success");
    expect(await socket.request("run.start", { assistant_id: "review", input: {} })).toMatchObject({ type: "error", error: "permission_denied" });
  });

  it("tenants never see each other's threads", async () => {
    const hub = await testHub({ jwtSecret: SECRET });
    const acme = await bearer("ann", "acme");
    const globex = await bearer("gus", "globex");
    const created = await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...acme, "content-type": "application/json" }, body: JSON.stringify({ thread_id: "secret-thread" }) });
    expect(created.status).toBe(200);
    expect((await fetch(`${hub.url}/threads/secret-thread`, { headers: acme })).status).toBe(200);

    expect((await fetch(`${hub.url}/threads/secret-thread`, { headers: globex })).status).toBe(404);
    expect((await fetch(`${hub.url}/threads/secret-thread/state`, { headers: globex })).status).toBe(404);
    const again = await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...globex, "content-type": "application/json" }, body: JSON.stringify({ thread_id: "secret-thread" }) });
    expect(again.status).toBe(404);
    expect(await upgradeStatus(wsUrl(hub, "/threads/secret-thread/stream/events"), globex)).toBe(404);
    const command = await fetch(`${hub.url}/threads/secret-thread/commands`, {
      method: "POST",
      headers: { ...globex, "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "review", input: {} } }),
    });
    expect(await command.json()).toMatchObject({ type: "error", id: 1, error: "not_found" });
    const sse = await fetch(`${hub.url}/threads/secret-thread/stream/events`, { method: "POST", headers: { ...globex, "content-type": "application/json" }, body: JSON.stringify({ channels: ["values"] }) });
    expect(sse.status).toBe(404);
    const mux = await TestSocket.open(wsUrl(hub, "/ws"), { headers: globex });
    expect(await mux.request("subscription.subscribe", { channels: ["values"] }, { thread_id: "secret-thread" })).toMatchObject({ type: "error", error: "not_found" });
  });

  it("in close mode, accepts and then closes refused sockets with 4000 + status", async () => {
    const hub = await testHub({ jwtSecret: SECRET });
    const closeCode = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.once("close", (code) => resolve(code));
        ws.once("error", () => {});
      });
    const url = wsUrl(hub, "/threads/t-close-mode/stream/events?refuse=close");
    await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...(await bearer("ann", "acme")), "content-type": "application/json" }, body: JSON.stringify({ thread_id: "theirs" }) });
    // Silent clients, closed after the hub's second: the three wait it out together.
    const codes = await Promise.all([
      closeCode(url),
      closeCode(url, await bearer("nobody", "acme", [])),
      closeCode(wsUrl(hub, "/threads/theirs/stream/events?refuse=close"), await bearer("gus", "globex")),
    ]);
    expect(codes).toEqual([4401, 4403, 4404]);
  });
});

