/**
 * Request bodies, the same for every HTTP route: one limit in bytes
 * (`maxFrameBytes`, the WebSocket command limit too) enforced while the body
 * is read (Hono's `bodyLimit`: a declared Content-Length past it is refused
 * before a byte is read, a chunked body as soon as it passes it) with 413
 * `payload_too_large`; JSON nested past `maxJsonDepth` refused with
 * `invalid_argument` before it is parsed; ids and metadata with their own
 * small limits. Routes read bodies only through `readJsonBody`.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { HubLimits } from "../config.ts";
import { SwitchboardError, errorResponse, jsonDepthExceeds, tooDeepMessage, utf8Bytes } from "../protocol/index.ts";

type BodyLimits = Pick<HubLimits, "maxFrameBytes" | "maxJsonDepth">;

/** The middleware every route runs behind. `POST …/commands` answers as a command error, the others as REST errors. */
export function requestBodyLimit(limits: BodyLimits): MiddlewareHandler {
  const maxSize = limits.maxFrameBytes;
  return bodyLimit({
    maxSize,
    onError: async (c) => {
      // A declared body is read to its end and dropped (nothing kept) before the answer, so the
      // client, which may still be sending, reads the 413 and can reuse the connection; past
      // MAX_DISCARD_BYTES, or a chunked body (already being read), the connection is closed.
      const declaredBytes = Number(c.req.header("content-length"));
      const discarded = Number.isFinite(declaredBytes) && declaredBytes <= MAX_DISCARD_BYTES && (await discard(c.req.raw.body));
      const declared = Number(c.req.header("content-length"));
      const message = `the request body is ${Number.isFinite(declared) && declared > maxSize ? `${declared} bytes` : `more than ${maxSize} bytes`}; the limit is ${maxSize} bytes (maxFrameBytes)`;
      const body = new URL(c.req.url).pathname.endsWith("/commands")
        ? errorResponse(null, "payload_too_large", message, { limit: maxSize })
        : { error: "payload_too_large", message, detail: message, details: { limit: maxSize } };
      return c.json(body, 413, discarded ? {} : { connection: "close" });
    },
  });
}

/** Declared bodies up to this size are read and dropped before a 413; larger ones close the connection. */
const MAX_DISCARD_BYTES = 64 * 1024 * 1024;

/** Reads a body to its end without keeping it; false if it could not be read. */
async function discard(body: ReadableStream<Uint8Array> | null): Promise<boolean> {
  if (body === null) return true;
  if (body.locked) return false;
  try {
    const reader = body.getReader();
    for (;;) if ((await reader.read()).done) return true;
  } catch {
    return false;
  }
}

/** The body as JSON: `empty` when there is none; malformed or too deep JSON is an `invalid_argument`. */
export async function readJsonBody(c: Context, limits: BodyLimits, empty: unknown = {}): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return empty;
  if (jsonDepthExceeds(text, limits.maxJsonDepth)) throw new SwitchboardError("invalid_argument", tooDeepMessage(limits.maxJsonDepth), { max_depth: limits.maxJsonDepth });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SwitchboardError("invalid_argument", `the request body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A client-chosen id within `maxIdBytes`. */
export function checkIdBytes(name: string, id: string, limits: Pick<HubLimits, "maxIdBytes">): void {
  const bytes = utf8Bytes(id);
  if (bytes > limits.maxIdBytes) throw new SwitchboardError("payload_too_large", `${name} is ${bytes} bytes; the limit is ${limits.maxIdBytes} (maxIdBytes)`, { limit: limits.maxIdBytes });
}

/** Metadata within `maxMetadataBytes` of JSON. */
export function checkMetadataBytes(metadata: Record<string, unknown>, limits: Pick<HubLimits, "maxMetadataBytes">): void {
  const bytes = utf8Bytes(JSON.stringify(metadata));
  if (bytes > limits.maxMetadataBytes) {
    throw new SwitchboardError("payload_too_large", `metadata is ${bytes} bytes of JSON; the limit is ${limits.maxMetadataBytes} (maxMetadataBytes)`, { limit: limits.maxMetadataBytes });
  }
}
