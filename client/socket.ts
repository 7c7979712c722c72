/**
 * The socket port the connection runs on, and its two adapters: the
 * platform `WebSocket` (browsers; token in `?access_token=`) and `ws` (Node;
 * token in an `Authorization` header). Tests inject their own factory.
 */

export interface SocketHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  onClose(code: number, reason: string): void;
  /** `status` is the HTTP status of a refused upgrade, when the platform tells it. */
  onError(message: string, status?: number): void;
  /** A protocol-level ping from the hub (Node only: browsers answer pings silently). */
  onPing?(): void;
}

export interface ClientSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  /** Drops the connection without a close handshake where the platform can (`ws`). */
  terminate(): void;
}

export interface SocketRequest {
  url: string;
  /** Extra handshake headers (Node only; browsers cannot set them). */
  headers: Record<string, string>;
}

export type SocketFactory = ((request: SocketRequest, handlers: SocketHandlers) => ClientSocket | Promise<ClientSocket>) & {
  /** Whether the factory can send headers; else the token goes in the query. */
  readonly supportsHeaders?: boolean;
};

/**
 * The subset of the WHATWG WebSocket the platform adapter uses. Handler
 * parameters are `never` so that any implementation's event types fit; the
 * adapter's handlers read only `data`, `code` and `reason`.
 */
export interface PlatformWebSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: never) => void) | null;
  onmessage: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
}

export type PlatformWebSocketConstructor = new (url: string) => PlatformWebSocket;

const decoder = new TextDecoder();

function textOf(data: unknown): string | null {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return decoder.decode(data);
  if (ArrayBuffer.isView(data)) return decoder.decode(data);
  return null;
}

/**
 * The URL a platform socket opens: with `refuse=close`, because a browser
 * never learns the HTTP status of a refused upgrade (it sees a bare 1006 and
 * would retry forever); in close mode the hub accepts and then closes with
 * 4401 / 4403 / 4404, which the connection can act on.
 */
export function closeModeUrl(url: string): string {
  const u = new URL(url);
  u.searchParams.set("refuse", "close");
  return u.toString();
}

/** A factory over a WHATWG WebSocket constructor (default: `globalThis.WebSocket`). */
export function platformSocketFactory(Ctor?: PlatformWebSocketConstructor): SocketFactory {
  return (request, handlers) => {
    const Impl = Ctor ?? platformConstructor();
    if (!Impl) throw new Error("no WebSocket implementation: pass `socketFactory` (e.g. nodeSocketFactory())");
    const ws = new Impl(closeModeUrl(request.url));
    ws.onopen = () => handlers.onOpen();
    ws.onmessage = (event: { data: unknown }) => {
      const text = textOf(event.data);
      if (text !== null) handlers.onMessage(text);
    };
    ws.onerror = () => handlers.onError("WebSocket error");
    ws.onclose = (event: { code: number; reason: string }) => handlers.onClose(event.code, event.reason);
    return {
      send: (text) => ws.send(text),
      close: (code, reason) => ws.close(code, reason),
      terminate: () => ws.close(),
    };
  };
}

/** `globalThis.WebSocket` when the platform has one. */
export function platformConstructor(): PlatformWebSocketConstructor | undefined {
  const candidate: unknown = Reflect.get(globalThis, "WebSocket");
  // A platform global: its constructor shape is the one thing the SDK takes on trust.
  return typeof candidate === "function" ? (candidate as PlatformWebSocketConstructor) : undefined;
}

/** True in Node (where `ws` is used so the token can travel in a header). */
export function isNode(): boolean {
  const proc: unknown = Reflect.get(globalThis, "process");
  if (typeof proc !== "object" || proc === null) return false;
  const versions: unknown = Reflect.get(proc, "versions");
  return typeof versions === "object" && versions !== null && typeof Reflect.get(versions, "node") === "string";
}
