/**
 * One published event's bytes, built once and written as they are to every
 * socket that wants the event: a complete WebSocket TEXT frame (RFC 6455
 * §5.2; a server's frames are unmasked, so the bytes are the same for every
 * peer) whose payload is the event's UTF-8 text. Writing one Buffer per
 * socket costs one write call; `ws.send` would build a header per socket and
 * write two buffers (writev), which is where a broadcast's time went.
 */
import type { LogEntry } from "../threads/index.ts";

export interface SharedFrame {
  /** The whole frame: header, then the payload. */
  readonly frame: Buffer;
  /** The event's UTF-8 text (a view into `frame`). */
  readonly payload: Buffer;
}

const FIN_TEXT = 0x81;

/** Frames `text` as one unfragmented, unmasked TEXT frame. */
export function textFrame(text: string): SharedFrame {
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
  return { frame, payload: frame.subarray(header) };
}

const frames = new WeakMap<LogEntry, SharedFrame>();

/** The entry's frame, built on its first delivery and kept as long as the entry. */
export function sharedFrame(entry: LogEntry): SharedFrame {
  let shared = frames.get(entry);
  if (!shared) frames.set(entry, (shared = textFrame(entry.text)));
  return shared;
}
