/**
 * The only file that knows `ws`: authorizes each upgrade before the socket
 * opens (a real HTTP status on refusal), hands accepted sockets to a Session
 * through the SocketPort, and runs one shared ping/pong heartbeat timer.
 * Per-connection state is the socket (a `ws` subclass that is also the
 * port and carries the heartbeat fields) and the session; the listeners are
 * module functions shared by every socket, not closures per connection.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import { SUBPROTOCOL_PREFIX, checkOrigin, checkPermission, withRequestSource, type AuthFailure, type Principal } from "../auth/index.ts";
import { httpStatusOf } from "../protocol/index.ts";
import { toSwitchboardError } from "../runs/index.ts";
import type { HubServices } from "../services.ts";
import type { SocketPort } from "../sessions/outbox.ts";
import { Session } from "../sessions/session.ts";
import { principalOf, streamThreadId } from "../auth/request.ts";

export interface WebSocketGlue {
  /** Closes every socket (1001) and stops the heartbeat. */
  close(): Promise<void>;
  readonly connections: number;
}

const REASONS: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 413: "Payload Too Large", 500: "Internal Server Error" };

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

/** What every accepted socket of one hub shares: where it reports and logs. */
interface Glue {
  readonly live: Set<HubSocket>;
  readonly services: HubServices;
}

/**
 * A `ws` socket as the hub keeps it: the SocketPort itself, plus its session
 * and heartbeat state. `ws` creates it (the server's `WebSocket` option).
 *
 * The hub's handling of `ws`'s events is in `emit` rather than in four
 * listeners: a listener table costs every connection ~250 bytes. Listeners
 * added with `on` still run after it.
 *
 * A shared frame is written straight to the TCP socket `ws` was given at the
 * upgrade. That keeps frames in order with those `ws` sends itself only
 * because its sender never holds a frame back: it does so only to compress
 * (perMessageDeflate is off here) or to read a Blob (the hub sends none).
 */
class HubSocket extends WebSocket implements SocketPort {
  glue: Glue | undefined = undefined;
  session: Session | undefined = undefined;
  raw: Duplex | undefined = undefined;
  /** Heartbeat ticks since the last pong or frame. */
  missed = 0;
  /** Time of the last inbound frame (for the idle timeout). */
  lastFrameAt = 0;

  /** Bytes written since this socket was corked (0: not corked by the batch). */
  corkedBytes = 0;

  sendFrame(frame: Buffer): void {
    const raw = this.raw;
    if (this.readyState !== WebSocket.OPEN || raw === undefined) return;
    if (this.corkedBytes === 0) {
      raw.cork();
      holdForBurst(this);
    }
    raw.write(frame);
    this.corkedBytes += frame.byteLength;
    // A long burst leaves in pieces: the outbox's soft bound reads buffered bytes, and corked ones count.
    if (this.corkedBytes >= BURST_MAX_BYTES) this.releaseBurst();
  }

  /** A reply or error (`ws` frames it) is never held: what the burst holds leaves first, in order. */
  override send(data: unknown, options?: unknown, cb?: unknown): void {
    this.releaseBurst();
    super.send(data as string, options as { binary?: boolean }, cb as ((error?: Error) => void) | undefined);
  }

  /** Writes what this socket holds from the current burst (one writev). */
  releaseBurst(): void {
    if (this.corkedBytes === 0) return;
    this.corkedBytes = 0;
    this.raw?.uncork();
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const glue = this.glue;
    if (glue === undefined) return super.emit(event, ...args);
    switch (event) {
      case "message":
        this.missed = 0;
        this.lastFrameAt = Date.now();
        this.session?.onFrame(toBuffer(args[0] as RawData), args[1] === true);
        break;
      case "pong":
        this.missed = 0;
        break;
      case "error":
        // Handled here: EventEmitter would throw an error nobody listens for.
        glue.services.logger.warn(`websocket error: ${(args[0] as Error).message}`);
        if (this.listenerCount("error") === 0) return true;
        break;
      case "close":
        if (glue.live.delete(this)) {
          glue.services.metrics.connections--;
          this.session?.close();
        }
        break;
    }
    return super.emit(event, ...args);
  }
}

/**
 * Write batching per burst: the frames one synchronous burst of fan-out
 * writes to a socket (a batch of events from the bus, a step's events) are
 * held by a cork and leave in one writev when the burst is over — a
 * microtask, so they wait for no I/O, timer or other turn, not even inside a
 * long chain of promises. Without it each frame is one write syscall per
 * socket, half of a busy node's CPU.
 */
const BURST_MAX_BYTES = 64 * 1024;
const held: HubSocket[] = [];
let releaseQueued = false;

function holdForBurst(socket: HubSocket): void {
  held.push(socket);
  if (releaseQueued) return;
  releaseQueued = true;
  queueMicrotask(releaseAll);
}

function releaseAll(): void {
  releaseQueued = false;
  // A socket corked again after a mid-burst release is listed twice; the second release is a no-op.
  for (const socket of held.splice(0)) socket.releaseBurst();
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
  // clientTracking off: `live` is the one set of open sockets.
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: limits.maxPayloadBytes,
    perMessageDeflate: false,
    handleProtocols: pickProtocol,
    WebSocket: HubSocket,
  });
  const live = new Set<HubSocket>();
  const glue: Glue = { live, services };

  const accept = (ws: HubSocket, socket: Duplex, principal: Principal, threadId: string | undefined): void => {
    // `ws` handles the socket's errors from here on.
    socket.off("error", destroySocket);
    ws.raw = socket;
    ws.lastFrameAt = Date.now();
    ws.session = new Session({ port: ws, principal, services, threadId });
    ws.glue = glue;
    live.add(ws);
    metrics.connections++;
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
    // A browser always sends Origin on a WebSocket handshake, and CORS does not apply to it.
    const foreign = checkOrigin(req.headers, services.origins);
    if (foreign) return deny(foreign.status, foreign.code, foreign.message);
    const auth = await principalOf(services.auth, req.headers, url);
    // What was refused and why, never the credential (url.pathname drops ?access_token=).
    const refusedLog = (status: number, code: string, reason: string): void =>
      logger.warn(`refused WebSocket ${url.pathname}: ${reason}`, { event: "auth.refused", transport: "websocket", path: url.pathname, status, code, reason });
    if (!auth.ok) {
      refusedLog(auth.status, auth.code, auth.message);
      return deny(auth.status, auth.code, auth.message);
    }
    const denied: AuthFailure | undefined = checkPermission(auth.principal, "read");
    if (denied) {
      refusedLog(denied.status, denied.code, denied.message);
      return deny(denied.status, denied.code, denied.message);
    }
    if (threadId !== undefined) {
      try {
        // Lazily created: the SDK names threads on the client side.
        await services.runs.ensureThread(threadId, auth.principal, true);
      } catch (error) {
        const e = toSwitchboardError(error);
        return deny(httpStatusOf(e.code), e.code, e.message);
      }
    }
    if (socket.destroyed) return;
    const principal = withRequestSource(auth.principal, "ws", req.socket.remoteAddress, req.headers["user-agent"]);
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws as HubSocket, socket, principal, threadId));
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
    for (const ws of live) {
      if (ws.missed >= 2) {
        // No pong (nor frame) for two whole intervals: the peer is gone. Two, so
        // that one event-loop stall on a busy hub does not cut a healthy client.
        ws.terminate();
        continue;
      }
      if (limits.idleTimeoutMs > 0 && (ws.session?.subscriptionCount ?? 0) === 0 && now - ws.lastFrameAt > limits.idleTimeoutMs) {
        // Alive but doing nothing: 4408, which clients treat as "reconnect when needed".
        ws.close(4408, "idle timeout");
        continue;
      }
      ws.missed++;
      ws.ping();
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
        (ws) =>
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
