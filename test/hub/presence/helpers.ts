/**
 * Fixtures for presence tests: a manual clock (no sleeps, countable timers),
 * real y-protocols client Awareness instances, and a harness that wires them
 * to a PresenceHub the way a socket would. afterEach disposes everything.
 */
import { createEncoder, toUint8Array, writeVarString, writeVarUint } from "lib0/encoding";
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import type { Principal } from "../../../hub/auth/index.ts";
import {
  PresenceHub,
  decodeAwarenessEntries,
  decodeBase64Update,
  encodeBase64Update,
  presenceRoomKey,
} from "../../../hub/presence/index.ts";
import type { Cancel, PresenceClock, PresenceHubOptions, PresenceResult } from "../../../hub/presence/index.ts";
import { onCleanup } from "../../support/cleanup.ts";


export function principal(sub: string, name: string): Principal {
  return { sub, name, tenant: "acme", roles: ["observer"] };
}

export const ROOM = presenceRoomKey("acme", "thread", "thread-1");

/** The clientIDs a relayed frame carries. */
export function clientIDsOf(update: string): number[] {
  const bytes = decodeBase64Update(update);
  const decoded = bytes && decodeAwarenessEntries(bytes, { maxEntries: 1000, maxStateBytes: 1 << 20 });
  if (!decoded?.ok) throw new Error("hub sent a malformed frame");
  return decoded.entries.map((e) => e.clientID);
}

/** An awareness update written by hand, for frames no honest client would send. */
export function rawUpdate(entries: ReadonlyArray<{ clientID: number; clock: number; json: string }>): Uint8Array {
  const encoder = createEncoder();
  writeVarUint(encoder, entries.length);
  for (const { clientID, clock, json } of entries) {
    writeVarUint(encoder, clientID);
    writeVarUint(encoder, clock);
    writeVarString(encoder, json);
  }
  return toUint8Array(encoder);
}

interface Task {
  at: number;
  every: number | undefined;
  fn: () => void;
}

/** Time moves only when a test says so; `tick()` runs what setImmediate would. */
export class ManualClock implements PresenceClock {
  time = 1_000_000;
  readonly #tasks = new Set<Task>();

  now(): number {
    return this.time;
  }

  schedule(fn: () => void, ms: number): Cancel {
    return this.#add({ at: this.time + ms, every: undefined, fn });
  }

  repeat(fn: () => void, ms: number): Cancel {
    return this.#add({ at: this.time + ms, every: ms, fn });
  }

  /** Scheduled callbacks and intervals not yet cancelled. */
  get pending(): number {
    return this.#tasks.size;
  }

  /** Runs every task due now, including ones they schedule for now. */
  tick(): void {
    this.advance(0);
  }

  /** Moves time forward, firing tasks in time order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = [...this.#tasks].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.time = Math.max(this.time, next.at);
      if (next.every === undefined) this.#tasks.delete(next);
      else next.at += next.every;
      next.fn();
    }
    this.time = end;
  }

  #add(task: Task): Cancel {
    this.#tasks.add(task);
    return () => this.#tasks.delete(task);
  }
}

/** A browser tab: a real client-side Awareness whose local updates queue up for sending. */
export class TestClient {
  readonly doc: Y.Doc;
  readonly awareness: Awareness;
  readonly received: string[] = [];
  readonly #outbox: Uint8Array[] = [];
  readonly #onUpdate = ({ added, updated, removed }: Changes, origin: unknown): void => {
    if (origin !== "local") return;
    this.#outbox.push(encodeAwarenessUpdate(this.awareness, [...added, ...updated, ...removed]));
  };

  constructor(clientID?: number) {
    this.doc = new Y.Doc();
    if (clientID !== undefined) this.doc.clientID = clientID;
    this.awareness = new Awareness(this.doc);
    this.awareness.on("update", this.#onUpdate);
  }

  get clientID(): number {
    return this.awareness.clientID;
  }

  /** Queued local updates as base64, oldest first; clears the queue. */
  take(): string[] {
    return this.#outbox.splice(0).map(encodeBase64Update);
  }

  receive(update: string): void {
    this.received.push(update);
    const bytes = decodeBase64Update(update);
    if (!bytes) throw new Error("hub sent a frame that is not base64");
    applyAwarenessUpdate(this.awareness, bytes, "hub");
  }

  /** Other clients' states as this client sees them. */
  peers(): Map<number, Record<string, unknown>> {
    return new Map([...this.awareness.getStates()].filter(([id]) => id !== this.clientID));
  }

  destroy(): void {
    this.awareness.off("update", this.#onUpdate);
    this.awareness.destroy();
    this.doc.destroy();
  }
}

interface Changes {
  added: number[];
  updated: number[];
  removed: number[];
}

export interface Frame {
  roomKey: string;
  connectionIds: readonly string[];
  update: string;
}

/** A PresenceHub plus named connections, each with its own client and principal. */
export class Harness {
  readonly clock = new ManualClock();
  readonly frames: Frame[] = [];
  readonly hub: PresenceHub;
  readonly #clients = new Map<string, { client: TestClient; principal: Principal }>();

  constructor(options: Partial<PresenceHubOptions> = {}) {
    this.hub = new PresenceHub({
      clock: this.clock,
      broadcast: (roomKey, connectionIds, update) => {
        this.frames.push({ roomKey, connectionIds, update });
        for (const id of connectionIds) this.client(id).receive(update);
      },
      ...options,
    });
    onCleanup(() => this.dispose());
  }

  /** Opens a connection and joins it to `roomKey`, applying the snapshot it gets. */
  connect(connectionId: string, who: Principal, roomKey = ROOM, client = new TestClient()): TestClient {
    this.#clients.set(connectionId, { client, principal: who });
    const snapshot = this.hub.join(roomKey, connectionId);
    if (snapshot !== undefined) client.receive(snapshot);
    return client;
  }

  client(connectionId: string): TestClient {
    const entry = this.#clients.get(connectionId);
    if (!entry) throw new Error(`no connection ${connectionId}`);
    return entry.client;
  }

  /** Sends the client's queued updates as `presence.update` frames. */
  send(connectionId: string, roomKey = ROOM): PresenceResult[] {
    const entry = this.#clients.get(connectionId);
    if (!entry) throw new Error(`no connection ${connectionId}`);
    return entry.client.take().map((update) => this.hub.applyUpdate(roomKey, connectionId, entry.principal, update));
  }

  /** Sets a connection's local state and sends it. */
  set(connectionId: string, state: Record<string, unknown> | null): PresenceResult[] {
    this.client(connectionId).awareness.setLocalState(state);
    return this.send(connectionId);
  }

  /** The socket closed: the hub forgets the connection; the client stays for inspection. */
  disconnect(connectionId: string): void {
    this.hub.leaveAll(connectionId);
  }

  framesTo(connectionId: string): Frame[] {
    return this.frames.filter((f) => f.connectionIds.includes(connectionId));
  }

  dispose(): void {
    this.hub.dispose();
    for (const { client } of this.#clients.values()) client.destroy();
    this.#clients.clear();
  }
}
