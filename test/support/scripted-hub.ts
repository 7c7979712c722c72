/**
 * A scripted stand-in for the hub on a real socket (port 0): it parses each
 * command with the real schema, answers through a per-test handler, records
 * handshakes, and can refuse upgrades, push frames and cut connections.
 */
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { HubClient, type HubClientOptions } from "../../client/index.ts";
import { decodeCommand, type ProtocolCommand, type ProtocolEvent, type ProtocolResponse } from "../../hub/protocol/index.ts";
import { onCleanup } from "./cleanup.ts";

export const WAIT = { timeout: 5_000, interval: 5 };

export { onCleanup };

export interface ScriptedConnection {
  ws: WebSocket;
  url: URL;
  headers: IncomingMessage["headers"];
  commands: ProtocolCommand[];
  send(frame: ProtocolResponse | ProtocolEvent | string): void;
}

/** What the handler returns: a reply (sent), "none" (never answer), or a function run after. */
export type Handler = (command: ProtocolCommand, conn: ScriptedConnection) => ProtocolResponse | "none" | void;

export class ScriptedHub {
  readonly connections: ScriptedConnection[] = [];
  handler: Handler = () => undefined;
  /** HTTP status to refuse the next upgrades with (null = accept). */
  refuseWith: number | null = null;
  refused = 0;
  readonly #wss: WebSocketServer;

  private constructor(wss: WebSocketServer) {
    this.#wss = wss;
    wss.on("connection", (ws, req) => {
      const conn: ScriptedConnection = {
        ws,
        url: new URL(req.url ?? "/", "http://hub.invalid"),
        headers: req.headers,
        commands: [],
        send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
      };
      this.connections.push(conn);
      ws.on("message", (data) => {
        const decoded = decodeCommand(String(data));
        if (!decoded.ok) throw new Error(`client sent an invalid command: ${decoded.error.message}`);
        const command = decoded.command;
        conn.commands.push(command);
        const reply = this.handler(command, conn);
        if (reply === "none") return;
        conn.send(reply ?? { type: "success", id: command.id, result: {} });
      });
    });
  }

  static async start(): Promise<ScriptedHub> {
    let hub: ScriptedHub | undefined;
    const wss = await new Promise<WebSocketServer>((resolve) => {
      const server: WebSocketServer = new WebSocketServer({
        port: 0,
        host: "127.0.0.1",
        verifyClient: (_info, done) => {
          const status = hub?.refuseWith ?? null;
          if (status === null) return done(true);
          if (hub) hub.refused++;
          done(false, status);
        },
      });
      server.once("listening", () => resolve(server));
    });
    hub = new ScriptedHub(wss);
    const h = hub;
    onCleanup(() => h.close());
    return h;
  }

  get url(): string {
    const { port } = this.#wss.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  get last(): ScriptedConnection {
    const conn = this.connections.at(-1);
    if (!conn) throw new Error("no connection yet");
    return conn;
  }

  /** The client whose options point here, closed after the test. */
  client(options: Partial<HubClientOptions> = {}): HubClient {
    const client = new HubClient({ url: this.url, reconnect: { initialDelayMs: 5, maxDelayMs: 20 }, ...options });
    onCleanup(() => client.close());
    return client;
  }

  async waitForConnections(n: number): Promise<void> {
    await vi.waitFor(() => {
      if (this.connections.length < n) throw new Error(`${this.connections.length} of ${n} connections`);
    }, WAIT);
  }

  async waitForCommand(conn: ScriptedConnection, method: string, nth = 0): Promise<ProtocolCommand> {
    return vi.waitFor(() => {
      const found = conn.commands.filter((c) => c.method === method)[nth];
      if (!found) throw new Error(`no ${method} yet`);
      return found;
    }, WAIT);
  }

  async close(): Promise<void> {
    for (const c of this.#wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}

/** A numbered event on thread `th_1` (the scripted hub's one thread). */
export function numberedValues(seq: number, threadId = "th_1"): ProtocolEvent {
  return { type: "event", seq, event_id: String(seq), thread_id: threadId, method: "values", params: { namespace: [], timestamp: seq, data: { n: seq } } };
}
