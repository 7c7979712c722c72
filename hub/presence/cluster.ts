/**
 * Presence across nodes, on the event bus's topics: each room open on a node
 * listens to the room's topic, tells it this node's changes (its members'
 * stamped states and their removal, batched per tick by the room), and asks
 * the other nodes for their states when it opens. A node that died leaves
 * its states to time out (the outdated timeout), as a silent client does.
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

export class BusPresenceLink implements PresenceLink {
  readonly #bus: EventBus;
  readonly #nodeId: string;
  readonly #onError: (error: unknown, context: string) => void;

  constructor(options: { bus: EventBus; nodeId: string; onError?: (error: unknown, context: string) => void }) {
    this.#bus = options.bus;
    this.#nodeId = options.nodeId;
    this.#onError = options.onError ?? (() => {});
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
        if (message.kind === "hello") {
          const snapshot = room.localSnapshot();
          if (snapshot !== undefined) this.publish(roomKey, snapshot);
          return;
        }
        const bytes = message.update === undefined ? undefined : decodeBase64Update(message.update);
        if (bytes) room.applyRemote(bytes);
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

  #send(topic: string, message: LinkMessage): Promise<void> {
    return this.#bus.publish(topic, JSON.stringify(message));
  }
}
