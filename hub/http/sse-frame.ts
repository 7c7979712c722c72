/**
 * The one Server-Sent Events framer of the hub (WHATWG HTML §9.2): every SSE
 * response — thread event streams, queue streams, the LangGraph API's run
 * streams — writes its frames, heartbeats and headers from here.
 *
 * Hand-written on purpose: a frame is two or three fixed lines around a JSON
 * payload (JSON text holds no raw newline, so one `data:` line is always
 * enough), and a thread's frames are built once as bytes and shared by every
 * stream (sseFrame in sse.ts), which Hono's streamSSE, writing per stream,
 * cannot do.
 */
const encoder = new TextEncoder();

/** The lines before the data: `event:`, then `id:` when there is one, then `data: `. */
export function sseHead(event: string, id?: string): string {
  return `event: ${event}\n${id === undefined ? "" : `id: ${id}\n`}data: `;
}

/** One frame as text; `data` must be one line (JSON is). */
export function sseFrameText(event: string, data: string, id?: string): string {
  return `${sseHead(event, id)}${data}\n\n`;
}

/** One frame as bytes. */
export function sseFrameBytes(event: string, data: string, id?: string): Uint8Array {
  return encoder.encode(sseFrameText(event, data, id));
}

/** The end of a frame, for frames assembled around bytes already encoded. */
export const SSE_END = encoder.encode("\n\n");

/** A comment frame: keeps the SDK's idle detector (and proxies) from dropping the stream. */
export const SSE_HEARTBEAT = encoder.encode(": heartbeat\n\n");

export const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" } as const;
