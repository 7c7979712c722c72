/**
 * The socket port the session logic depends on, and the per-connection
 * bounded send queue over it. Frames go straight to the socket while its
 * buffer is small; past the soft bound they queue, and adjacent text deltas
 * of one message are merged (a slow reader gets fewer, larger deltas, none
 * lost); past the hard bound the connection is terminated without a close
 * frame, which would only queue behind the backlog.
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
  flushIntervalMs: number;
}

type DeltaEvent = EventOf<"messages">;

/** A frame waiting for the socket to drain; a class, so every one has the same shape. */
class Queued {
  /** A text to send, or a prebuilt frame. */
  readonly data: string | Buffer;
  readonly bytes: number;
  /** Set for a text delta that a later one may extend. */
  readonly delta: DeltaEvent | undefined;

  constructor(data: string | Buffer, delta?: DeltaEvent) {
    this.data = data;
    this.bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    this.delta = delta;
  }
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

function merge(earlier: DeltaEvent, later: DeltaEvent): DeltaEvent {
  const a = earlier.params.data;
  const b = later.params.data;
  if (a.event !== "content-block-delta" || b.event !== "content-block-delta" || a.delta.type !== "text-delta" || b.delta.type !== "text-delta") {
    return later;
  }
  // Keeps the later seq/event_id: the merged frame covers everything up to it.
  return { ...later, params: { ...later.params, data: { ...b, delta: { ...b.delta, text: a.delta.text + b.delta.text } } } };
}

export class Outbox {
  readonly #port: SocketPort;
  readonly #limits: OutboxLimits;
  readonly #metrics: HubMetrics;
  /** Told when the hard bound cuts the connection (the session, which closes itself). */
  readonly #owner: { close(): void };
  #queue: Queued[] = [];
  #queuedBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #dead = false;

  constructor(port: SocketPort, limits: OutboxLimits, metrics: HubMetrics, owner: { close(): void }) {
    this.#port = port;
    this.#limits = limits;
    this.#metrics = metrics;
    this.#owner = owner;
  }

  get queuedFrames(): number {
    return this.#queue.length;
  }

  /** A response or other frame that is never merged. */
  sendText(text: string): void {
    this.#push(new Queued(text));
  }

  /** A published event: the same frame goes to every socket; nothing is allocated while the socket keeps up. */
  sendEntry(entry: LogEntry): void {
    if (this.#dead || this.#port.readyState !== OPEN) return;
    if (this.#queue.length === 0 && this.#port.bufferedAmount <= this.#limits.sendSoftBytes) {
      this.#write(entry.frame);
      return;
    }
    this.#push(new Queued(entry.frame, textDeltaOf(entry.event)));
  }

  sendEvent(event: ProtocolEvent): void {
    this.#push(new Queued(encodeEvent(event)));
  }

  /** Stops the flush timer; queued frames are dropped (the connection is gone). */
  dispose(): void {
    this.#dead = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #push(item: Queued): void {
    if (this.#dead || this.#port.readyState !== OPEN) return;
    if (this.#queue.length === 0 && this.#port.bufferedAmount <= this.#limits.sendSoftBytes) {
      this.#write(item.data);
      return;
    }
    if (this.#queue.length === 0) this.#metrics.slowConsumerBacklogs++;
    const last = this.#queue.at(-1);
    if (item.delta && last?.delta && sameBlock(last.delta, item.delta)) {
      const event = merge(last.delta, item.delta);
      const merged = new Queued(encodeEvent(event), event);
      this.#queuedBytes += merged.bytes - last.bytes;
      this.#queue[this.#queue.length - 1] = merged;
      this.#metrics.deltasCoalesced++;
    } else {
      this.#queue.push(item);
      this.#queuedBytes += item.bytes;
    }
    if (this.#port.bufferedAmount + this.#queuedBytes > this.#limits.sendHardBytes) {
      this.#terminate();
      return;
    }
    this.#schedule();
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
    while (this.#queue.length > 0 && this.#port.bufferedAmount <= this.#limits.sendSoftBytes) {
      const item = this.#queue.shift();
      if (!item) break;
      this.#queuedBytes -= item.bytes;
      this.#write(item.data);
    }
    if (this.#queue.length > 0) this.#schedule();
  }

  #terminate(): void {
    this.#metrics.slowConsumersTerminated++;
    this.dispose();
    this.#port.terminate();
    this.#owner.close();
  }
}
