/**
 * One room's awareness relay (a thread or a queue): a server-side y-protocols
 * Awareness over an empty Y.Doc, the clientIDs each connection owns, and one
 * batched relay frame per tick. Transport-agnostic: frames leave through the
 * `broadcast` callback as base64.
 */
import {
  Awareness,
  applyAwarenessUpdate,
  encodeAwarenessUpdate,
  outdatedTimeout,
  removeAwarenessStates,
} from "y-protocols/awareness";
import * as Y from "yjs";
import type { Principal } from "../auth/index.ts";
import { systemClock } from "./clock.ts";
import type { Cancel, PresenceClock } from "./clock.ts";
import { decodeAwarenessEntries, encodeBase64Update, stampIdentity } from "./codec.ts";
import { presenceRejection } from "./errors.ts";
import type { PresenceResult } from "./errors.ts";

/** Receives each relay frame: the same bytes go to every listed connection. */
export type PresenceBroadcast = (connectionIds: readonly string[], update: string) => void;

export interface PresenceLimits {
  /** Frames merged per room: `0` (default) one per tick, `> 0` at most one per this many ms. */
  readonly flushIntervalMs?: number;
  /** A state not renewed for this long is removed by `sweep()` (y-protocols' 30 s). */
  readonly outdatedTimeoutMs?: number;
  /** clientIDs one connection may own in a room (one per client-side Awareness). */
  readonly maxClientsPerConnection?: number;
  /** Bytes of one state's JSON as the client sent it. */
  readonly maxStateBytes?: number;
}

export interface PresenceRoomOptions extends PresenceLimits {
  readonly broadcast: PresenceBroadcast;
  /**
   * Several nodes: this node's own changes (its members' states, their
   * removal), batched like the relay frames, for the other nodes' rooms.
   */
  readonly onLocalChange?: (update: string) => void;
  readonly clock?: PresenceClock;
  /** A throwing `broadcast` is reported here and does not stop the other frames. */
  readonly onError?: (error: unknown, context: string) => void;
}

export const PRESENCE_DEFAULTS = {
  flushIntervalMs: 0,
  outdatedTimeoutMs: outdatedTimeout,
  maxClientsPerConnection: 4,
  maxStateBytes: 4096,
} as const satisfies Required<PresenceLimits>;

/** The origin of updates applied from another node's room. */
const REMOTE = Symbol("remote node");

interface AwarenessChanges {
  added: number[];
  updated: number[];
  removed: number[];
}

export class PresenceRoom {
  readonly key: string;
  readonly #o: PresenceRoomOptions;
  readonly #clock: PresenceClock;
  readonly #limits: Required<PresenceLimits>;
  readonly #doc = new Y.Doc();
  readonly #awareness: Awareness;
  /**
   * Members, each with the clientIDs it owns; null for a silent watcher (most
   * members), which then costs a map entry and no set.
   */
  readonly #members = new Map<string, Set<number> | null>();
  readonly #owners = new Map<number, string>();
  readonly #renewedAt = new Map<number, number>();
  /** clientIDs added, renewed or removed since the last frame. */
  readonly #pending = new Set<number>();
  /** Several nodes: clientIDs whose state another node's member owns (never claimable here), and that node. */
  readonly #remote = new Map<number, string>();
  /** Several nodes: this node's own changes not yet told to the others. */
  readonly #localPending = new Set<number>();
  #cancelFlush: Cancel | undefined;
  #disposed = false;

  constructor(key: string, options: PresenceRoomOptions) {
    this.key = key;
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#limits = {
      flushIntervalMs: options.flushIntervalMs ?? PRESENCE_DEFAULTS.flushIntervalMs,
      outdatedTimeoutMs: options.outdatedTimeoutMs ?? PRESENCE_DEFAULTS.outdatedTimeoutMs,
      maxClientsPerConnection: options.maxClientsPerConnection ?? PRESENCE_DEFAULTS.maxClientsPerConnection,
      maxStateBytes: options.maxStateBytes ?? PRESENCE_DEFAULTS.maxStateBytes,
    };
    this.#awareness = new Awareness(this.#doc);
    // The hub is not a participant: drop the `{}` state Awareness gives itself.
    this.#awareness.setLocalState(null);
    // Awareness starts a wall-clock 3 s interval per instance; `sweep()` on the
    // injected clock replaces it (PresenceHub runs one sweep for all rooms).
    clearInterval(this.#awareness._checkInterval);
    this.#awareness.on("update", this.#onUpdate);
  }

  get size(): number {
    return this.#members.size;
  }

  get stateCount(): number {
    return this.#awareness.getStates().size;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  has(connectionId: string): boolean {
    return this.#members.has(connectionId);
  }

  /** Adds a member; true when it was not one already. Send it `snapshot()` next. */
  join(connectionId: string): boolean {
    if (this.#disposed) throw new Error(`presence room ${this.key} is disposed`);
    if (this.#members.has(connectionId)) return false;
    this.#members.set(connectionId, null);
    return true;
  }

  /** Every current state as one update (base64), or undefined when nobody has one. */
  snapshot(): string | undefined {
    const ids = [...this.#awareness.getStates().keys()];
    return ids.length === 0 ? undefined : encodeBase64Update(encodeAwarenessUpdate(this.#awareness, ids));
  }

  /** The current states (stamped), for display or metrics; never for authorization. */
  states(): ReadonlyMap<number, Readonly<Record<string, unknown>>> {
    return this.#awareness.getStates();
  }

  /**
   * Applies a member's awareness update with its identity stamped in. The
   * whole update is refused if any entry is malformed, too large, or names a
   * clientID owned by another connection.
   */
  applyUpdate(connectionId: string, principal: Principal, update: Uint8Array): PresenceResult {
    const owned = this.#members.get(connectionId);
    if (owned === undefined) return presenceRejection("not_joined", `connection has not joined presence room ${this.key}`);
    const { maxClientsPerConnection, maxStateBytes } = this.#limits;
    const decoded = decodeAwarenessEntries(update, { maxEntries: maxClientsPerConnection, maxStateBytes });
    if (!decoded.ok) return decoded;

    const claims = new Set<number>();
    for (const { clientID } of decoded.entries) {
      const owner = this.#owners.get(clientID);
      if ((owner !== undefined && owner !== connectionId) || clientID === this.#awareness.clientID || this.#remote.has(clientID)) {
        return presenceRejection("foreign_client", `clientID ${clientID} belongs to another connection`);
      }
      if (owner === undefined) claims.add(clientID);
    }
    if ((owned?.size ?? 0) + claims.size > maxClientsPerConnection) {
      return presenceRejection("too_many_clients", `a connection may own at most ${maxClientsPerConnection} clientIDs`);
    }
    if (claims.size > 0) {
      const mine = owned ?? new Set<number>();
      if (owned === null) this.#members.set(connectionId, mine);
      for (const clientID of claims) {
        mine.add(clientID);
        this.#owners.set(clientID, connectionId);
      }
    }
    applyAwarenessUpdate(this.#awareness, stampIdentity(update, principal), connectionId);
    return { ok: true };
  }

  /** Removes a member and its states; the others get the removal in the next frame. */
  leave(connectionId: string): boolean {
    const found = this.#members.get(connectionId);
    if (found === undefined) return false;
    this.#members.delete(connectionId);
    const owned = found ?? [];
    for (const clientID of owned) this.#owners.delete(clientID);
    removeAwarenessStates(this.#awareness, [...owned], "leave");
    if (this.#members.size === 0) {
      // Nobody is left to tell here (the other nodes are); the room is about to be dropped or reused empty.
      this.#tellOtherNodes();
      this.#cancelPendingFlush();
      const dropped = [...this.#pending];
      this.#pending.clear();
      for (const clientID of dropped) this.#forget(clientID);
    }
    for (const clientID of owned) if (!this.#pending.has(clientID)) this.#forget(clientID);
    return true;
  }

  /** Removes states not renewed within the outdated timeout; returns how many. */
  sweep(): number {
    const deadline = this.#clock.now() - this.#limits.outdatedTimeoutMs;
    const outdated: number[] = [];
    for (const [clientID, at] of this.#renewedAt) if (at <= deadline) outdated.push(clientID);
    if (outdated.length > 0) removeAwarenessStates(this.#awareness, outdated, "timeout");
    // Another node's states that timed out here are that node's to remove everywhere, not ours.
    for (const clientID of outdated) this.#remote.delete(clientID);
    return outdated.length;
  }

  /**
   * Several nodes: applies another node's changes of this room (its members'
   * stamped states); this node's members get them in the next frame.
   */
  applyRemote(update: Uint8Array, fromNode: string): void {
    if (this.#disposed) return;
    const decoded = decodeAwarenessEntries(update, { maxEntries: Number.MAX_SAFE_INTEGER, maxStateBytes: Number.MAX_SAFE_INTEGER });
    if (!decoded.ok) throw new Error(`another node's presence update is malformed: ${decoded.message}`);
    for (const { clientID, state } of decoded.entries) {
      if (this.#owners.has(clientID)) continue;
      if (state !== null) this.#remote.set(clientID, fromNode);
    }
    applyAwarenessUpdate(this.#awareness, update, REMOTE);
    for (const { clientID, state } of decoded.entries) if (state === null) this.#remote.delete(clientID);
  }

  /**
   * Several nodes: removes the states of another node's members (that node
   * is gone: its heartbeat lapsed, or it said goodbye); this node's members
   * get the removal in the next frame. Returns how many.
   */
  dropNode(nodeId: string): number {
    if (this.#disposed) return 0;
    const ids = [...this.#remote].flatMap(([clientID, node]) => (node === nodeId ? [clientID] : []));
    if (ids.length === 0) return 0;
    // Removed at their current clocks (removeAwarenessStates would raise them): a client keeps
    // that clock, so the owner's next renewal — should the node only have been cut off — shows
    // the state again at once instead of being older than the removal.
    for (const clientID of ids) {
      this.#awareness.states.delete(clientID);
      this.#remote.delete(clientID);
    }
    const changes: AwarenessChanges = { added: [], updated: [], removed: ids };
    this.#awareness.emit("change", [changes, REMOTE]);
    this.#awareness.emit("update", [changes, REMOTE]);
    return ids.length;
  }

  /** Several nodes: the states this node's members own, for a node that just opened the room. */
  localSnapshot(): string | undefined {
    const ids = [...this.#owners.keys()].filter((clientID) => this.#awareness.getStates().has(clientID));
    return ids.length === 0 ? undefined : encodeBase64Update(encodeAwarenessUpdate(this.#awareness, ids));
  }

  /** Sends any pending frame now instead of at the end of the tick. */
  flush(): void {
    this.#cancelPendingFlush();
    this.#tellOtherNodes();
    if (this.#pending.size === 0) return;
    const changed = [...this.#pending];
    this.#pending.clear();

    // Each member gets at most one frame, without its own clientIDs; members
    // that changed nothing share one encoding.
    const contributors = new Set<string>();
    for (const clientID of changed) {
      const owner = this.#owners.get(clientID);
      if (owner !== undefined) contributors.add(owner);
    }
    const others = [...this.#members.keys()].filter((id) => !contributors.has(id));
    if (others.length > 0) this.#send(others, changed);
    for (const connectionId of contributors) {
      const theirs = changed.filter((clientID) => this.#owners.get(clientID) !== connectionId);
      if (theirs.length > 0) this.#send([connectionId], theirs);
    }
    for (const clientID of changed) this.#forget(clientID);
  }

  /** Detaches from the awareness and cancels timers; the room is unusable afterwards. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#cancelPendingFlush();
    this.#awareness.off("update", this.#onUpdate);
    this.#awareness.destroy();
    this.#doc.destroy();
    this.#members.clear();
    this.#owners.clear();
    this.#renewedAt.clear();
    this.#pending.clear();
    this.#remote.clear();
    this.#localPending.clear();
  }

  readonly #onUpdate = ({ added, updated, removed }: AwarenessChanges, origin: unknown): void => {
    const now = this.#clock.now();
    if (this.#o.onLocalChange && origin !== REMOTE) {
      for (const ids of [added, updated, removed]) for (const clientID of ids) if (!this.#remote.has(clientID)) this.#localPending.add(clientID);
    }
    for (const clientID of added) this.#renewedAt.set(clientID, now);
    for (const clientID of updated) this.#renewedAt.set(clientID, now);
    for (const clientID of removed) this.#renewedAt.delete(clientID);
    for (const ids of [added, updated, removed]) for (const clientID of ids) this.#pending.add(clientID);
    if (this.#cancelFlush === undefined && this.#pending.size > 0 && this.#members.size > 0) {
      this.#cancelFlush = this.#clock.schedule(() => {
        this.#cancelFlush = undefined;
        this.flush();
      }, this.#limits.flushIntervalMs);
    }
  };

  #tellOtherNodes(): void {
    if (this.#localPending.size === 0 || !this.#o.onLocalChange) return;
    const ids = [...this.#localPending];
    this.#localPending.clear();
    try {
      this.#o.onLocalChange(encodeBase64Update(encodeAwarenessUpdate(this.#awareness, ids)));
    } catch (error) {
      this.#o.onError?.(error, `telling other nodes of presence in ${this.key}`);
    }
  }

  #send(connectionIds: readonly string[], clientIDs: number[]): void {
    const update = encodeBase64Update(encodeAwarenessUpdate(this.#awareness, clientIDs));
    try {
      this.#o.broadcast(connectionIds, update);
    } catch (error) {
      this.#o.onError?.(error, `relaying presence in ${this.key}`);
    }
  }

  /**
   * Drops the clock of a clientID nobody owns and nobody holds a state for, so
   * a long-lived room does not keep one entry per client that ever passed.
   */
  #forget(clientID: number): void {
    if (this.#owners.has(clientID) || this.#awareness.getStates().has(clientID) || this.#localPending.has(clientID)) return;
    this.#awareness.meta.delete(clientID);
    this.#renewedAt.delete(clientID);
  }

  #cancelPendingFlush(): void {
    this.#cancelFlush?.();
    this.#cancelFlush = undefined;
  }
}
