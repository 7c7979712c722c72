/**
 * WebSocket framing done once per event: the thread log encodes each event as
 * its TEXT frame when it is published, and every subscribed socket writes the
 * same bytes. Pure byte work; no `ws` here.
 */
import { encodeEvent, type ProtocolEvent } from "../protocol/index.ts";

const FIN_TEXT = 0x81;

/**
 * Frames `text` as one unfragmented, unmasked WebSocket TEXT frame (RFC 6455
 * §5.2). A server's frames are unmasked, so the same bytes can be written
 * as they are to every socket: one write call each, where `ws.send` would
 * build a header per socket and write two buffers.
 */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const header = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = FIN_TEXT;
  if (header === 2) {
    frame[1] = length;
  } else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  frame.write(text, header, "utf8");
  return frame;
}

/** An event encoded once as its WebSocket frame (its JSON is the payload). */
export function encodeEventFrame(event: ProtocolEvent): Buffer {
  return textFrame(encodeEvent(event));
}

/** The payload (the UTF-8 text) of a frame textFrame built: a view, no copy. */
export function framePayload(frame: Buffer): Buffer {
  const marker = frame[1] ?? 0;
  return frame.subarray(marker === 126 ? 4 : marker === 127 ? 10 : 2);
}
