/**
 * The connection on a real socket against a scripted hub: responses matched
 * to commands by id, timeouts, error replies mapped to HubClientError, the
 * token (header in Node, query for the platform WebSocket, asked again on
 * each reconnect), fatal closes and refused upgrades.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { HubClientError, platformSocketFactory, type PlatformWebSocketConstructor } from "../../client/index.ts";
import { ScriptedHub, WAIT } from "../support/scripted-hub.ts";

async function rejection(promise: Promise<unknown>): Promise<HubClientError> {
  const error: unknown = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  if (!(error instanceof HubClientError)) throw error;
  return error;
}

describe("request / response correlation", () => {
  it("matches responses to commands by id, whatever their order", async () => {
    const hub = await ScriptedHub.start();
    const held: Array<{ id: number; key: unknown }> = [];
    hub.handler = (command, conn) => {
      if (command.method !== "state.get") return;
      held.push({ id: command.id, key: command.params.keys?.[0] });
      if (held.length < 2) return "none";
      for (const h of [...held].reverse()) conn.send({ type: "success", id: h.id, result: { values: { key: h.key } } });
      return "none";
    };
    const client = hub.client();
    const [a, b] = await Promise.all([client.thread("th_1").getState(["a"]), client.thread("th_1").getState(["b"])]);
    expect(a).toEqual({ key: "a" });
    expect(b).toEqual({ key: "b" });
    expect(hub.last.commands.every((c) => c.thread_id === "th_1")).toBe(true);
    expect(client.pendingRequests).toBe(0);
  });

  it("maps error replies to HubClientError with code, retryable, details and method", async () => {
    const hub = await ScriptedHub.start();
    hub.handler = (command) => {
      if (command.method === "input.respond") {
        return { type: "error", id: command.id, error: "already_answered", message: "int_5f2c was answered by Ada", details: { answered_by: { sub: "u_ada", name: "Ada" } }, answered_at: 7 };
      }
      if (command.method === "run.start") return { type: "error", id: command.id, error: "thread_busy", message: "busy" };
      return undefined;
    };
    const thread = hub.client().thread("th_1");
    const answered = await rejection(thread.respond("int_5f2c", true));
    expect(answered).toMatchObject({ code: "already_answered", retryable: false, method: "input.respond", message: "int_5f2c was answered by Ada", details: { answered_by: { name: "Ada" }, answered_at: 7 } });
    const busy = await rejection(thread.run("review", null, { subscribe: false }));
    expect(busy).toMatchObject({ code: "thread_busy", retryable: true, method: "run.start" });
  });

  it("times out a command that gets no response", async () => {
    const hub = await ScriptedHub.start();
    hub.handler = () => "none";
    const client = hub.client({ requestTimeoutMs: 50 });
    const error = await rejection(client.thread("th_1").cancel());
    expect(error).toMatchObject({ code: "timeout", retryable: true, method: "run.cancel" });
    expect(client.pendingRequests).toBe(0);
  });

  it("fails an in-flight command with connection_lost when the socket drops, then reconnects", async () => {
    const hub = await ScriptedHub.start();
    hub.handler = (_command, conn) => {
      if (hub.connections.length === 1) {
        conn.ws.terminate();
        return "none";
      }
      return undefined;
    };
    const client = hub.client();
    const error = await rejection(client.thread("th_1").cancel());
    expect(error).toMatchObject({ code: "connection_lost", retryable: true });
    await hub.waitForConnections(2);
    await vi.waitFor(() => expect(client.state).toBe("open"), WAIT);
  });

  it("reports an undecodable frame as a protocol_error and keeps the connection", async () => {
    const hub = await ScriptedHub.start();
    const client = hub.client();
    const errors: HubClientError[] = [];
    client.on("error", (e) => errors.push(e));
    await client.connect();
    hub.last.send('{"type":"event","method":"nope"}');
    await vi.waitFor(() => expect(errors.map((e) => e.code)).toEqual(["protocol_error"]), WAIT);
    expect(await client.thread("th_1").getState()).toEqual({});
  });
});

describe("liveness", () => {
  it("cuts and reconnects a connection that went silent after the hub's first ping", async () => {
    const hub = await ScriptedHub.start();
    const client = hub.client({ idleTimeoutMs: 60 });
    await client.connect();
    hub.last.ws.ping();
    // The server now stays silent (a half-open connection): the client gives up on it.
    await hub.waitForConnections(2);
    await vi.waitFor(() => expect(client.state).toBe("open"), WAIT);
  });
});

describe("token", () => {
  it("goes in an Authorization header in Node, asked again on each reconnect", async () => {
    const hub = await ScriptedHub.start();
    let n = 0;
    const client = hub.client({ token: async () => `tok${++n}` });
    await client.connect();
    expect(hub.last.headers.authorization).toBe("Bearer tok1");
    expect(hub.last.url.pathname).toBe("/ws");
    expect(hub.last.url.searchParams.has("access_token")).toBe(false);
    hub.last.ws.terminate();
    await hub.waitForConnections(2);
    expect(hub.last.headers.authorization).toBe("Bearer tok2");
  });

  it("goes in ?access_token= with the platform WebSocket", async () => {
    const hub = await ScriptedHub.start();
    // ws implements the WHATWG interface the platform adapter uses.
    const Ctor: PlatformWebSocketConstructor = class extends WebSocket {
      constructor(url: string) {
        super(url);
      }
    };
    const client = hub.client({ token: "static-token", socketFactory: platformSocketFactory(Ctor) });
    await client.connect();
    expect(hub.last.url.searchParams.get("access_token")).toBe("static-token");
    expect(hub.last.headers.authorization).toBeUndefined();
  });
});

describe("closes and refusals", () => {
  it("stops for good on 4403 and reports permission_denied", async () => {
    const hub = await ScriptedHub.start();
    const client = hub.client();
    const errors: HubClientError[] = [];
    client.on("error", (e) => errors.push(e));
    const states = client.iterate("state");
    await client.connect();
    hub.last.ws.close(4403, "access withdrawn");
    const seen: string[] = [];
    for await (const state of states) {
      seen.push(state);
      if (state === "closed") break;
    }
    expect(seen).toEqual(["connecting", "open", "closed"]);
    expect(errors.map((e) => [e.code, e.closeCode, e.message])).toEqual([["permission_denied", 4403, "access withdrawn"]]);
    await expect(client.thread("th_1").cancel()).rejects.toMatchObject({ code: "client_closed" });
    expect(hub.connections).toHaveLength(1);
  });

  it("a refused upgrade (401) with a static token is fatal", async () => {
    const hub = await ScriptedHub.start();
    hub.refuseWith = 401;
    const client = hub.client({ token: "expired" });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: "unauthenticated", closeCode: 4401 });
    expect(client.state).toBe("closed");
  });

  it("a refused upgrade (401) with a token function retries with a fresh token", async () => {
    const hub = await ScriptedHub.start();
    hub.refuseWith = 401;
    const tokens: string[] = [];
    const client = hub.client({
      token: () => {
        const t = `t${tokens.length}`;
        tokens.push(t);
        if (tokens.length === 3) hub.refuseWith = null;
        return t;
      },
    });
    await client.connect();
    expect(hub.refused).toBe(2);
    expect(hub.last.headers.authorization).toBe("Bearer t2");
  });

  it("gives up after maxAttempts with client_closed", async () => {
    const hub = await ScriptedHub.start();
    hub.refuseWith = 503;
    const client = hub.client({ reconnect: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 } });
    const error = await rejection(client.connect());
    expect(error.code).toBe("client_closed");
    expect(hub.refused).toBe(4);
  });
});
