/**
 * The Node adapter of the socket port, over `ws`: sends the token as an
 * `Authorization` header and reports a refused upgrade's HTTP status.
 * Loaded lazily so that browser bundles never need `ws`.
 */
import WebSocket from "ws";
import type { SocketFactory } from "./socket.ts";

function textOf(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}

const REFUSED = /Unexpected server response: (\d+)/;

export function nodeSocketFactory(): SocketFactory {
  const factory: SocketFactory = (request, handlers) => {
    const ws = new WebSocket(request.url, { headers: request.headers, perMessageDeflate: false });
    ws.on("open", () => handlers.onOpen());
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      handlers.onMessage(textOf(data));
    });
    ws.on("ping", () => handlers.onPing?.());
    ws.on("error", (error) => {
      const status = REFUSED.exec(error.message)?.[1];
      handlers.onError(error.message, status === undefined ? undefined : Number(status));
    });
    ws.on("close", (code, reason) => handlers.onClose(code, reason.toString("utf8")));
    return {
      send: (text) => ws.send(text),
      close: (code, reason) => ws.close(code, reason),
      terminate: () => ws.terminate(),
    };
  };
  return Object.assign(factory, { supportsHeaders: true });
}
