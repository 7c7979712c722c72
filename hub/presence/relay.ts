/**
 * Presence on sockets: a PresenceHub whose relay frames become `presence`
 * events on the member connections. Rooms are a thread or a review queue of
 * one tenant; a connection joins a thread's room when it subscribes to the
 * thread and a queue's room on `queue.subscribe`, and leaves all on close.
 */
import type { Principal } from "../auth/index.ts";
import type { PresenceClock } from "./clock.ts";
import type { PresenceResult } from "./errors.ts";
import { PresenceHub, presenceRoomKey, type PresenceCounts, type PresenceLink, type RoomKind } from "./hub.ts";
import type { ProtocolEvent } from "../protocol/index.ts";

export interface PresenceRoomRef {
  tenant: string;
  kind: RoomKind;
  /** Thread id or queue name. */
  id: string;
}

/** Where a connection's presence events go (its send queue: an object it has anyway, not a closure per connection). */
export interface PresenceMember {
  sendEvent(event: ProtocolEvent): void;
}

function presenceEvent(room: PresenceRoomRef, update: string, now: number): ProtocolEvent {
  const data = room.kind === "queue" ? { update, queue: room.id } : { update };
  return {
    type: "event",
    ...(room.kind === "thread" ? { thread_id: room.id } : {}),
    method: "presence",
    params: { namespace: [], timestamp: now, data },
  };
}

export class PresenceRelay {
  readonly #hub: PresenceHub;
  readonly #connections = new Map<string, PresenceMember>();
  /** The descriptor of each open room, by key; an entry lives exactly as long as the hub's room. */
  readonly #rooms = new Map<string, PresenceRoomRef>();

  /** `link`: several nodes — each room also shows the members of the same room on the other nodes. */
  constructor(options: { clock?: PresenceClock; onError?: (error: unknown, context: string) => void; link?: PresenceLink | undefined } = {}) {
    this.#hub = new PresenceHub({
      ...options,
      broadcast: (roomKey, connectionIds, update) => {
        const room = this.#rooms.get(roomKey);
        if (!room) return;
        const event = presenceEvent(room, update, Date.now());
        for (const id of connectionIds) this.#connections.get(id)?.sendEvent(event);
      },
      onRoomClosed: (roomKey) => this.#rooms.delete(roomKey),
    });
  }

  connect(connectionId: string, member: PresenceMember): void {
    this.#connections.set(connectionId, member);
  }

  /** The connection closed: its states are removed (and the removal relayed). */
  disconnect(connectionId: string): void {
    this.#hub.leaveAll(connectionId);
    this.#connections.delete(connectionId);
  }

  /** Joins; returns the room's current states as a `presence` event, if any. */
  join(room: PresenceRoomRef, connectionId: string): ProtocolEvent | undefined {
    const key = presenceRoomKey(room.tenant, room.kind, room.id);
    // Joined first: a new room is opened by the hub, then described here.
    const snapshot = this.#hub.join(key, connectionId);
    if (!this.#rooms.has(key)) this.#rooms.set(key, room);
    return snapshot === undefined ? undefined : presenceEvent(room, snapshot, Date.now());
  }

  leave(room: PresenceRoomRef, connectionId: string): void {
    this.#hub.leave(presenceRoomKey(room.tenant, room.kind, room.id), connectionId);
  }

  update(room: PresenceRoomRef, connectionId: string, principal: Principal, update: string): PresenceResult {
    return this.#hub.applyUpdate(presenceRoomKey(room.tenant, room.kind, room.id), connectionId, principal, update);
  }

  counts(): PresenceCounts {
    return this.#hub.counts();
  }

  dispose(): void {
    this.#hub.dispose();
    this.#connections.clear();
    this.#rooms.clear();
  }
}
