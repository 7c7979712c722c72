/**
 * All presence rooms of a hub: a room is created when its first connection
 * joins and disposed when its last one leaves. One sweep timer serves every
 * room, running only while a room exists.
 */
import type { Principal } from "../auth/index.ts";
import { systemClock } from "./clock.ts";
import type { Cancel, PresenceClock } from "./clock.ts";
import { decodeBase64Update } from "./codec.ts";
import { presenceRejection } from "./errors.ts";
import type { PresenceResult } from "./errors.ts";
import { PRESENCE_DEFAULTS, PresenceRoom } from "./room.ts";
import type { PresenceLimits } from "./room.ts";

export type RoomKind = "thread" | "queue";

/** Room keys include the tenant: queue names are only unique within one. */
export function presenceRoomKey(tenant: string, kind: RoomKind, id: string): string {
  return JSON.stringify([tenant, kind, id]);
}

/**
 * Several nodes: how a room hears the same room on the other nodes. `open`
 * starts listening for the room (and asks the others for their states);
 * `publish` tells them this node's changes. Adapter: cluster.ts (on the bus).
 */
export interface PresenceLink {
  open(roomKey: string, room: Pick<PresenceRoom, "applyRemote" | "localSnapshot">): () => void;
  publish(roomKey: string, update: string): void;
  /** Hears when another node is gone (its heartbeat lapsed, or it said goodbye): its members' states are to be dropped. */
  watchNodes(onGone: (nodeId: string) => void): void;
  /** Stops listening and tells the other nodes this one is gone. */
  close(): void;
}

export interface PresenceHubOptions extends PresenceLimits {
  /** One relay frame (base64 awareness update) for the listed members of a room. */
  readonly broadcast: (roomKey: string, connectionIds: readonly string[], update: string) => void;
  readonly clock?: PresenceClock;
  /** How often outdated states are swept; default a tenth of the timeout, as y-protocols does. */
  readonly sweepIntervalMs?: number;
  readonly onError?: (error: unknown, context: string) => void;
  /** A room was disposed (its last member left, or the hub was disposed): what callers keep per room can go. */
  readonly onRoomClosed?: (roomKey: string) => void;
  readonly link?: PresenceLink | undefined;
}

export interface PresenceCounts {
  /** Gauges. */
  readonly rooms: number;
  readonly connections: number;
  readonly memberships: number;
  readonly states: number;
  /** Counters since start. */
  readonly updatesApplied: number;
  readonly updatesRejected: number;
  readonly framesRelayed: number;
  readonly deliveries: number;
  readonly statesSwept: number;
}

export class PresenceHub {
  readonly #o: PresenceHubOptions;
  readonly #clock: PresenceClock;
  readonly #rooms = new Map<string, PresenceRoom>();
  /** Rooms of each connection: a short array (a Set would cost more than the few keys it holds). */
  readonly #roomsOf = new Map<string, string[]>();
  /** Several nodes: each open room's link to the other nodes (its close). */
  readonly #links = new Map<string, () => void>();
  #stopSweep: Cancel | undefined;
  #applied = 0;
  #rejected = 0;
  #frames = 0;
  #deliveries = 0;
  #swept = 0;

  constructor(options: PresenceHubOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    options.link?.watchNodes((nodeId) => this.dropNode(nodeId));
  }

  /** Several nodes: drops the states of a node that is gone, in every room; returns how many. */
  dropNode(nodeId: string): number {
    let removed = 0;
    for (const room of this.#rooms.values()) removed += room.dropNode(nodeId);
    return removed;
  }

  /** Joins (idempotent) and returns the room's current states for this connection, if any. */
  join(roomKey: string, connectionId: string): string | undefined {
    const room = this.#rooms.get(roomKey) ?? this.#open(roomKey);
    room.join(connectionId);
    const keys = this.#roomsOf.get(connectionId);
    if (!keys) this.#roomsOf.set(connectionId, [roomKey]);
    else if (!keys.includes(roomKey)) keys.push(roomKey);
    return room.snapshot();
  }

  /** Applies a `presence.update` (base64) from a member, stamped with its principal. */
  applyUpdate(roomKey: string, connectionId: string, principal: Principal, update: string): PresenceResult {
    const result = this.#apply(roomKey, connectionId, principal, update);
    if (result.ok) this.#applied++;
    else this.#rejected++;
    return result;
  }

  leave(roomKey: string, connectionId: string): void {
    const room = this.#rooms.get(roomKey);
    if (!room?.leave(connectionId)) return;
    const keys = this.#roomsOf.get(connectionId)?.filter((key) => key !== roomKey);
    if (keys === undefined || keys.length === 0) this.#roomsOf.delete(connectionId);
    else this.#roomsOf.set(connectionId, keys);
    if (room.size === 0) this.#close(room);
  }

  /** Leaves every room; call when the connection closes. */
  leaveAll(connectionId: string): void {
    for (const roomKey of [...(this.#roomsOf.get(connectionId) ?? [])]) this.leave(roomKey, connectionId);
  }

  /** Removes outdated states in every room (the timer calls this). */
  sweep(): number {
    let removed = 0;
    for (const room of this.#rooms.values()) removed += room.sweep();
    this.#swept += removed;
    return removed;
  }

  counts(): PresenceCounts {
    let memberships = 0;
    let states = 0;
    for (const room of this.#rooms.values()) {
      memberships += room.size;
      states += room.stateCount;
    }
    return {
      rooms: this.#rooms.size,
      connections: this.#roomsOf.size,
      memberships,
      states,
      updatesApplied: this.#applied,
      updatesRejected: this.#rejected,
      framesRelayed: this.#frames,
      deliveries: this.#deliveries,
      statesSwept: this.#swept,
    };
  }

  /** Drops every room without relaying anything (hub shutdown). */
  dispose(): void {
    for (const room of [...this.#rooms.values()]) this.#close(room);
    this.#roomsOf.clear();
    this.#o.link?.close();
  }

  #apply(roomKey: string, connectionId: string, principal: Principal, update: string): PresenceResult {
    const room = this.#rooms.get(roomKey);
    if (!room?.has(connectionId)) return presenceRejection("not_joined", "join the room before sending presence");
    const bytes = decodeBase64Update(update);
    if (!bytes) return presenceRejection("malformed_update", "the update is not base64");
    return room.applyUpdate(connectionId, principal, bytes);
  }

  #open(roomKey: string): PresenceRoom {
    const { broadcast, link } = this.#o;
    const room = new PresenceRoom(roomKey, {
      ...this.#o,
      clock: this.#clock,
      ...(link ? { onLocalChange: (update: string) => link.publish(roomKey, update) } : {}),
      broadcast: (connectionIds, update) => {
        this.#frames++;
        this.#deliveries += connectionIds.length;
        broadcast(roomKey, connectionIds, update);
      },
    });
    this.#rooms.set(roomKey, room);
    if (link) this.#links.set(roomKey, link.open(roomKey, room));
    if (this.#stopSweep === undefined) {
      const timeout = this.#o.outdatedTimeoutMs ?? PRESENCE_DEFAULTS.outdatedTimeoutMs;
      this.#stopSweep = this.#clock.repeat(() => this.sweep(), this.#o.sweepIntervalMs ?? Math.floor(timeout / 10));
    }
    return room;
  }

  #close(room: PresenceRoom): void {
    room.dispose();
    this.#rooms.delete(room.key);
    this.#links.get(room.key)?.();
    this.#links.delete(room.key);
    this.#o.onRoomClosed?.(room.key);
    if (this.#rooms.size === 0) {
      this.#stopSweep?.();
      this.#stopSweep = undefined;
    }
  }
}
