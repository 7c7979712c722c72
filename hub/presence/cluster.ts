/**
 * Presence across nodes, on the event bus's topics: each room open on a node
 * listens to the room's topic, tells it this node's changes (its members'
 * stamped states and their removal, batched per tick by the room), and asks
 * the other nodes for their states when it opens.
 *
 * Each node also beats on one topic (`p:nodes`) every `beatMs`. A node not
 * heard from — no beat, no presence message — for `lapseMs` is gone (killed,
 * partitioned): every room here drops its members' states at once, instead of
 * leaving them to the 30 s outdated timeout of a silent client. A node that
 * shuts down says goodbye, with the same effect. A node that was only cut off
 * shows its members again with their next renewal (clients renew every 15 s).
 */
import type { EventBus } from "../threads/index.ts";
import { decodeBase64Update } from "./codec.ts";
import type { PresenceLink } from "./hub.ts";

interface LinkMessage {
  from: string;
  /** "hello": a node opened the room and asks for the others' states. */
  kind: "update" | "hello";
  update?: string;
}

interface NodeMessage {
  from: string;
  /** "beat": alive; "bye": shutting down, drop its states. */
  kind: "beat" | "bye";
}

const NODES_TOPIC = "p:nodes";

export interface NodeLiveness {
  /** How often this node beats (default 1 s). */
  beatMs: number;
  /** A node not heard from for this long is gone (default 5 s: a busy node's stalled loop is not a death). */
  lapseMs: number;
}

export const DEFAULT_NODE_LIVENESS: NodeLiveness = { beatMs: 1_000, lapseMs: 5_000 };


export class BusPresenceLink implements PresenceLink {
  readonly #bus: EventBus;
  readonly #nodeId: string;
  readonly #onError: (error: unknown, context: string) => void;
  readonly #liveness: NodeLiveness;
  /** When each other node was last heard from. */
  readonly #heard = new Map<string, number>();
  #onGone: (nodeId: string) => void = () => {};
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #closed = false;
  /** A beat failed (Redis away): reported once, not every beat. */
  #beatFailing = false;

  constructor(options: { bus: EventBus; nodeId: string; onError?: (error: unknown, context: string) => void; liveness?: Partial<NodeLiveness> }) {
    this.#bus = options.bus;
    this.#nodeId = options.nodeId;
    this.#onError = options.onError ?? (() => {});
    this.#liveness = { ...DEFAULT_NODE_LIVENESS, ...options.liveness };
  }

  watchNodes(onGone: (nodeId: string) => void): void {
    this.#onGone = onGone;
    if (this.#timer !== undefined || this.#closed) return;
    this.#bus
      .subscribe(NODES_TOPIC, (text) => this.#onNodeMessage(text))
      .then((off) => {
        if (this.#closed) return off();
        this.#unsubscribe = off;
      })
      .catch((error: unknown) => this.#onError(error, "listening to the other nodes' heartbeats"));
    this.#beat("beat");
    this.#timer = setInterval(() => {
      this.#beat("beat");
      this.#sweep();
    }, this.#liveness.beatMs);
    this.#timer.unref();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    this.#beat("bye");
  }

  open(roomKey: string, room: Parameters<PresenceLink["open"]>[1]): () => void {
    const topic = `p:${roomKey}`;
    let closed = false;
    let unsubscribe: (() => void) | undefined;
    const onMessage = (text: string): void => {
      if (closed) return;
      try {
        const message = JSON.parse(text) as LinkMessage;
        if (message.from === this.#nodeId) return;
        this.#heardFrom(message.from);
        if (message.kind === "hello") {
          const snapshot = room.localSnapshot();
          if (snapshot !== undefined) this.publish(roomKey, snapshot);
          return;
        }
        const bytes = message.update === undefined ? undefined : decodeBase64Update(message.update);
        if (bytes) room.applyRemote(bytes, message.from);
      } catch (error) {
        this.#onError(error, `presence of another node in ${roomKey}`);
      }
    };
    this.#bus
      .subscribe(topic, onMessage)
      .then((off) => {
        if (closed) return off();
        unsubscribe = off;
        return this.#send(topic, { from: this.#nodeId, kind: "hello" });
      })
      .catch((error: unknown) => this.#onError(error, `listening to presence of ${roomKey} on other nodes`));
    return () => {
      closed = true;
      unsubscribe?.();
    };
  }

  publish(roomKey: string, update: string): void {
    this.#send(`p:${roomKey}`, { from: this.#nodeId, kind: "update", update }).catch((error: unknown) => this.#onError(error, `telling other nodes of presence in ${roomKey}`));
  }

  #onNodeMessage(text: string): void {
    try {
      const message = JSON.parse(text) as NodeMessage;
      if (message.from === this.#nodeId) return;
      if (message.kind === "bye") return this.#gone(message.from);
      this.#heardFrom(message.from);
    } catch (error) {
      this.#onError(error, "another node's heartbeat");
    }
  }

  #heardFrom(nodeId: string): void {
    this.#heard.set(nodeId, Date.now());
  }

  #sweep(): void {
    const deadline = Date.now() - this.#liveness.lapseMs;
    for (const [nodeId, at] of this.#heard) if (at < deadline) this.#gone(nodeId);
  }

  #gone(nodeId: string): void {
    this.#heard.delete(nodeId);
    try {
      this.#onGone(nodeId);
    } catch (error) {
      this.#onError(error, `dropping the presence of node ${nodeId}`);
    }
  }

  #beat(kind: NodeMessage["kind"]): void {
    this.#send(NODES_TOPIC, { from: this.#nodeId, kind }).then(
      () => {
        this.#beatFailing = false;
      },
      (error: unknown) => {
        if (!this.#beatFailing) this.#onError(error, "telling the other nodes this one is alive");
        this.#beatFailing = true;
      },
    );
  }

  #send(topic: string, message: LinkMessage | NodeMessage): Promise<void> {
    return this.#bus.publish(topic, JSON.stringify(message));
  }
}
