/**
 * The socket port the session logic depends on, and the per-connection
 * bounded send queue over it. Frames go straight to the socket while its
 * buffer is small; past the soft bound they queue, and adjacent text deltas
 * of one message are merged (a slow reader gets fewer, larger deltas, none
 * lost). A consumer that does not read is dropped at a bound in bytes (its
 * buffered + queued bytes past the hard bound) or in time (no progress for
 * `sendQueueMaxMs`: at every retry of its queue since then, the socket took
 * nothing and its buffer did not shrink), without a close frame, which would
 * only queue behind the backlog. Time is counted only at those retries
 * (timer callbacks, after the event loop has done its I/O), so a hub whose
 * loop was busy for a while does not mistake its own delay for a reader's.
 *
 * Merging is linear in the text: a merged delta keeps its pieces and is
 * encoded once, when it is sent. (Re-encoding the whole text on every token
 * made a paused socket cost the hub quadratic CPU over a long message.)
 */
import type { HubMetrics } from "../metrics.ts";
import { encodeEvent, type EventOf, type ProtocolEvent } from "../protocol/index.ts";
import type { LogEntry } from "../threads/index.ts";

/** The few things the hub needs from a WebSocket (`ws` in production, fakes in tests). */
export interface SocketPort {
  /** Sends one TEXT frame. */
  send(text: string): void;
  /** Writes a complete TEXT frame built once for many sockets (protocol textFrame) as it is. */
  sendFrame(frame: Buffer): void;
  close(code: number, reason: string): void;
  /** Drops the connection at once (no close handshake). */
  terminate(): void;
  readonly bufferedAmount: number;
  /** 1 = open, as in the WebSocket API. */
  readonly readyState: number;
}

export const OPEN = 1;

export interface OutboxLimits {
  sendSoftBytes: number;
  sendHardBytes: number;
  /** How long a backlogged consumer may make no progress before it is dropped. */
  sendQueueMaxMs: number;
  flushIntervalMs: number;
}

type DeltaEvent = EventOf<"messages">;

/** Bytes a piece of text adds to a JSON string (escapes included). */
const escapedBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text)) - 2;

/** A frame waiting for the socket to drain; a class, so every one has the same shape. */
class Queued {
  /** A text or prebuilt frame to send; undefined once deltas were merged into it (built on send). */
  data: string | Buffer | undefined;
  bytes: number;
  /** Set for a text delta that a later one may extend: the latest merged event (its seq and event_id win). */
  delta: DeltaEvent | undefined;
  /** The texts merged so far, in order (set from the first merge). */
  pieces: string[] | undefined = undefined;
  /** Escaped bytes of every piece but the latest (whose bytes are in the latest frame). */
  #earlierBytes = 0;
  #latestText = "";
  constructor(data: string | Buffer, delta?: DeltaEvent) {
    this.data = data;
    this.bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    this.delta = delta;
    if (delta) this.#latestText = textOf(delta);
  }

  /** Appends a later delta of the same block: O(its text), whatever the length so far. */
  extend(later: Queued): void {
    if (!later.delta) return;
    this.pieces ??= [this.#latestText];
    this.#earlierBytes += escapedBytes(this.#latestText);
    this.#latestText = textOf(later.delta);
    this.pieces.push(this.#latestText);
    this.delta = later.delta;
    this.data = undefined;
    this.bytes = later.bytes + this.#earlierBytes;
  }

  /** What to write: the frame as queued, or the merged delta encoded once. */
  build(): string | Buffer {
    if (this.data !== undefined) return this.data;
    const later = this.delta;
    const text = this.pieces?.join("") ?? "";
    if (!later || later.params.data.event !== "content-block-delta") return text;
    const data = later.params.data;
    return encodeEvent({ ...later, params: { ...later.params, data: { ...data, delta: { type: "text-delta", text } } } });
  }
}

function textOf(event: DeltaEvent): string {
  const data = event.params.data;
  return data.event === "content-block-delta" && data.delta.type === "text-delta" ? data.delta.text : "";
}

function textDeltaOf(event: ProtocolEvent): DeltaEvent | undefined {
  if (event.method !== "messages") return undefined;
  const data = event.params.data;
  return data.event === "content-block-delta" && data.delta.type === "text-delta" ? event : undefined;
}

/** Same message (its `run_id` is the message id), same block, same place. */
function sameBlock(a: DeltaEvent, b: DeltaEvent): boolean {
  const da = a.params.data;
  const db = b.params.data;
  return (
    a.thread_id === b.thread_id &&
    a.params.node === b.params.node &&
    a.params.namespace.join("\u0000") === b.params.namespace.join("\u0000") &&
    da.event === "content-block-delta" &&
    db.event === "content-block-delta" &&
    da.index === db.index &&
    da["run_id"] === db["run_id"]
  );
}

/** Who owns the outbox: closed with it, and told (to log it) when its reader was too slow. */
export interface OutboxOwner {
  close(): void;
  slowConsumer?(pendingBytes: number): void;
}

export class Outbox {
  readonly #port: SocketPort;
  readonly #limits: OutboxLimits;
  readonly #metrics: HubMetrics;
  /** Told when a bound cuts the connection (the session, which closes itself). */
  readonly #owner: OutboxOwner;
  #queue: Queued[] = [];
  #queuedBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #dead = false;
  /** Since when (a retry that found) the consumer made no progress; undefined while it does. */
  #stalledSince: number | undefined;
  /** The socket's buffered bytes at the last retry (less now = it is reading). */
  #lastBuffered = 0;

  constructor(port: SocketPort, limits: OutboxLimits, metrics: HubMetrics, owner: OutboxOwner) {
    this.#port = port;
    this.#limits = limits;
    this.#metrics = metrics;
    this.#owner = owner;
  }

  get queuedFrames(): number {
    return this.#queue.length;
  }

  /** Bytes waiting in the queue (not yet handed to the socket). */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** A response or other frame that is never merged. */
  sendText(text: string): void {
    if (this.#dead || this.#port.readyState !== OPEN) return;
    if (this.#keepsUp()) return this.#write(text);
    this.#push(new Queued(text));
  }

  /** A published event: the same frame goes to every socket; nothing is allocated while the socket keeps up. */
  sendEntry(entry: LogEntry): void {
    if (this.#dead || this.#port.readyState !== OPEN) return;
    if (this.#keepsUp()) return this.#write(entry.frame);
    this.#push(new Queued(entry.frame, textDeltaOf(entry.event)));
  }

  sendEvent(event: ProtocolEvent): void {
    this.sendText(encodeEvent(event));
  }

  /** Stops the flush timer; queued frames are dropped (the connection is gone). */
  dispose(): void {
    this.#dead = true;
    this.#queue = [];
    this.#setQueuedBytes(0);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #keepsUp(): boolean {
    return this.#queue.length === 0 && this.#port.bufferedAmount <= this.#limits.sendSoftBytes;
  }

  #push(item: Queued): void {
    if (this.#queue.length === 0) this.#metrics.slowConsumerBacklogs++;
    const last = this.#queue.at(-1);
    if (item.delta && last?.delta && sameBlock(last.delta, item.delta)) {
      const before = last.bytes;
      last.extend(item);
      this.#setQueuedBytes(this.#queuedBytes + last.bytes - before);
      this.#metrics.deltasCoalesced++;
    } else {
      this.#queue.push(item);
      this.#setQueuedBytes(this.#queuedBytes + item.bytes);
    }
    if (this.#port.bufferedAmount + this.#queuedBytes > this.#limits.sendHardBytes) return this.#terminate();
    this.#schedule();
  }

  #setQueuedBytes(bytes: number): void {
    this.#metrics.sendQueuedBytes += bytes - this.#queuedBytes;
    this.#queuedBytes = bytes;
    if (bytes > this.#metrics.sendQueuePeakBytes) this.#metrics.sendQueuePeakBytes = bytes;
  }

  #write(data: string | Buffer): void {
    if (typeof data === "string") this.#port.send(data);
    else this.#port.sendFrame(data);
    this.#metrics.deliveries++;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#limits.flushIntervalMs);
  }

  #flush(): void {
    if (this.#dead || this.#port.readyState !== OPEN) return;
    const buffered = this.#port.bufferedAmount;
    let progress = buffered < this.#lastBuffered;
    while (this.#queue.length > 0 && this.#port.bufferedAmount <= this.#limits.sendSoftBytes) {
      const item = this.#queue.shift();
      if (!item) break;
      this.#setQueuedBytes(this.#queuedBytes - item.bytes);
      this.#write(item.build());
      progress = true;
    }
    this.#lastBuffered = this.#port.bufferedAmount;
    if (this.#queue.length === 0) {
      this.#stalledSince = undefined;
      return;
    }
    const now = Date.now();
    this.#stalledSince = progress ? undefined : (this.#stalledSince ?? now);
    if (this.#stalledSince !== undefined && now - this.#stalledSince > this.#limits.sendQueueMaxMs) return this.#terminate();
    this.#schedule();
  }

  #terminate(): void {
    this.#metrics.slowConsumersTerminated++;
    this.#owner.slowConsumer?.(this.#queuedBytes + this.#port.bufferedAmount);
    this.dispose();
    this.#port.terminate();
    this.#owner.close();
  }
}
