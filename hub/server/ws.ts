/**
 * The only file that knows `ws`: authorizes each upgrade before the socket
 * opens (a real HTTP status on refusal), hands accepted sockets to a Session
 * through the SocketPort, and runs one shared ping/pong heartbeat timer.
 * Per-connection state is the socket, a small port object and the session.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { SUBPROTOCOL_PREFIX, checkPermission, type AuthFailure, type Principal } from "../auth/index.ts";
import { toSwitchboardError } from "../runs/index.ts";
import type { HubServices } from "../services.ts";
import type { SharedFrame } from "../transports/frames.ts";
import type { SocketPort } from "../transports/outbox.ts";
import { Session } from "../transports/session.ts";
import { principalOf, streamThreadId } from "./principal.ts";

interface Live {
  ws: WebSocket;
  session: Session;
  /** Heartbeat ticks since the last pong or frame. */
  missed: number;
  /** Time of the last inbound frame (for the idle timeout). */
  lastFrameAt: number;
}

export interface WebSocketGlue {
  /** Closes every socket (1001) and stops the heartbeat. */
  close(): Promise<void>;
  readonly connections: number;
}

const REASONS: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error" };

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: code, message });
  const extra = status === 401 ? 'WWW-Authenticate: Bearer error="invalid_token"\r\n' : "";
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\nConnection: close\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** A browser fails the handshake unless one offered protocol is echoed; prefer an application one. */
function pickProtocol(protocols: Set<string>): string | false {
  for (const p of protocols) if (!p.startsWith(SUBPROTOCOL_PREFIX)) return p;
  const [first] = protocols;
  return first ?? false;
}

/**
 * The SocketPort over a `ws` socket; prototype methods keep it one small object.
 * A shared frame is written straight to the TCP socket `ws` was given at the
 * upgrade. That keeps frames in order with those `ws` sends itself only
 * because its sender never holds a frame back: it does so only to compress
 * (perMessageDeflate is off here) or to read a Blob (the hub sends none).
 */
class WsPort implements SocketPort {
  readonly #ws: WebSocket;
  readonly #socket: Duplex;
  constructor(ws: WebSocket, socket: Duplex) {
    this.#ws = ws;
    this.#socket = socket;
  }
  send(data: string | Buffer): void {
    // Pre-encoded Buffers must still go out as TEXT frames.
    this.#ws.send(data, { binary: false });
  }
  sendShared(shared: SharedFrame): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#socket.write(shared.frame);
  }
  close(code: number, reason: string): void {
    this.#ws.close(code, reason);
  }
  terminate(): void {
    this.#ws.terminate();
  }
  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }
  get readyState(): number {
    return this.#ws.readyState;
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** How refused upgrades are answered: an HTTP status (default) or accept-then-close 4xxx. */
export type UpgradeRefusal = "http" | "close";

export function attachWebSockets(server: Server, services: HubServices, authRefusal: UpgradeRefusal = "http"): WebSocketGlue {
  const { limits, metrics, logger } = services;
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxPayloadBytes, perMessageDeflate: false, handleProtocols: pickProtocol });
  const live = new Set<Live>();

  const accept = (ws: WebSocket, socket: Duplex, principal: Principal, threadId: string | undefined): void => {
    const entry: Live = { ws, session: new Session({ port: new WsPort(ws, socket), principal, services, threadId }), missed: 0, lastFrameAt: Date.now() };
    live.add(entry);
    metrics.connections++;
    ws.on("message", (data, isBinary) => {
      entry.missed = 0;
      entry.lastFrameAt = Date.now();
      entry.session.onFrame(toBuffer(data), isBinary);
    });
    ws.on("pong", () => {
      entry.missed = 0;
    });
    ws.on("error", (error) => logger.warn(`websocket error: ${error.message}`));
    ws.on("close", () => {
      if (!live.delete(entry)) return;
      metrics.connections--;
      entry.session.close();
    });
  };

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    // A module-level handler: a closure here would share this function's scope
    // and keep the request and upgrade head alive for the socket's lifetime.
    socket.on("error", destroySocket);
    const url = new URL(req.url ?? "/", "http://hub.invalid");
    const threadId = url.pathname === "/ws" ? undefined : streamThreadId(url.pathname);
    if (threadId === null) return refuse(socket, 404, "not_found", `no WebSocket endpoint at ${url.pathname}`);
    // The official SDK retries an HTTP refusal but gives up at once on a 4xxx close:
    // `?refuse=close` (or the hub option) accepts first, then closes with 4000 + status.
    const closeMode = authRefusal === "close" || url.searchParams.get("refuse") === "close";
    const deny = (status: number, code: string, message: string): void => {
      if (!closeMode || socket.destroyed) return refuse(socket, status, code, message);
      // Closing on the first frame fails that command with the status too; a
      // silent client is closed after a second. A reason is at most 123 bytes.
      const reason = message.replace(/[^\x20-\x7e]/g, "?").slice(0, 120);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const shut = (): void => ws.close(4000 + status, reason);
        ws.once("message", shut);
        setTimeout(shut, 1000).unref();
      });
    };
    const auth = await principalOf(services.auth, req.headers, url);
    if (!auth.ok) return deny(auth.status, auth.code, auth.message);
    const denied: AuthFailure | undefined = checkPermission(auth.principal, "read");
    if (denied) return deny(denied.status, denied.code, denied.message);
    if (threadId !== undefined) {
      try {
        // Lazily created: the SDK names threads on the client side.
        await services.runs.ensureThread(threadId, auth.principal, true);
      } catch (error) {
        const e = toSwitchboardError(error);
        return deny(e.code === "not_found" ? 404 : 500, e.code, e.message);
      }
    }
    if (socket.destroyed) return;
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket, auth.principal, threadId));
  };

  const listener = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    onUpgrade(req, socket, head).catch((error: unknown) => {
      logger.error(`upgrade failed: ${String(error)}`);
      refuse(socket, 500, "unknown_error", "upgrade failed");
    });
  };
  server.on("upgrade", listener);

  const heartbeat = setInterval(() => {
    const now = Date.now();
    for (const entry of live) {
      if (entry.missed >= 2) {
        // No pong (nor frame) for two whole intervals: the peer is gone. Two, so
        // that one event-loop stall on a busy hub does not cut a healthy client.
        entry.ws.terminate();
        continue;
      }
      if (limits.idleTimeoutMs > 0 && entry.session.subscriptionCount === 0 && now - entry.lastFrameAt > limits.idleTimeoutMs) {
        // Alive but doing nothing: 4408, which clients treat as "reconnect when needed".
        entry.ws.close(4408, "idle timeout");
        continue;
      }
      entry.missed++;
      entry.ws.ping();
    }
  }, limits.heartbeatMs);
  heartbeat.unref();

  return {
    get connections() {
      return live.size;
    },
    async close() {
      clearInterval(heartbeat);
      server.off("upgrade", listener);
      const closing = [...live].map(
        ({ ws }) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once("close", () => resolve());
            ws.close(1001, "hub shutting down");
            // A peer that never answers the close handshake is cut off.
            setTimeout(() => ws.terminate(), 1000).unref();
          }),
      );
      await Promise.all(closing);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function destroySocket(this: Duplex): void {
  this.destroy();
}
