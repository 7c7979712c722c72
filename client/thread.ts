/**
 * `client.thread(id)`: commands for one thread (run, respond, claim,
 * release, cancel, presence) and its live projections, kept up to date from
 * the events of its subscriptions. Events pass the seq gate (exactly once),
 * then the pure reducers; each changed slice is emitted to `on(...)`.
 */
import { isRecord, type Channel, type EventOf, type MultitaskStrategy, type ProtocolEvent, type ResyncData, type SubscriptionFilter } from "../hub/protocol/index.ts";
import type { CommandInput, Connection } from "./connection.ts";
import { Emitter, type IterateOptions, type Unsubscribe } from "./emitter.ts";
import { HubClientError } from "./errors.ts";
import { buildTree, type AgentTree } from "./projections/tree.ts";
import type { InterruptView, ResolvedInterrupt } from "./projections/interrupts.ts";
import type { MessageView } from "./projections/messages.ts";
import type { ToolRunView } from "./projections/tools.ts";
import { LocalPresence } from "./local-presence.ts";
import { emptyPresence, presenceList, type PresenceEntry } from "./projections/presence.ts";
import { initialThreadState, reduceThread, type RunView, type ThreadState } from "./projections/thread-state.ts";
import { admit, disconnected, openGate, subscribed, unsubscribed, type SeqGate } from "./seq-gate.ts";

export const DEFAULT_CHANNELS: readonly Channel[] = ["lifecycle", "messages", "values", "input", "tasks", "tools"];

export interface ThreadEvents {
  /** The whole projection, after every applied event. */
  state: ThreadState;
  values: Record<string, unknown> | null;
  messages: readonly MessageView[];
  tools: readonly ToolRunView[];
  /** Pending interrupts (open or claimed). */
  interrupts: readonly InterruptView[];
  resolved: readonly ResolvedInterrupt[];
  status: RunView;
  tree: AgentTree | null;
  presence: PresenceEntry[];
  /** Every event applied (duplicates already dropped). */
  event: ProtocolEvent;
  resync: ResyncData;
}

export interface SubscribeOptions {
  namespaces?: string[][];
  depth?: number;
}

export interface Subscription {
  readonly filter: SubscriptionFilter;
  /** The hub's id; changes when the connection is restored. */
  readonly subscriptionId: string | undefined;
  unsubscribe(): Promise<void>;
}

export interface RunOptions {
  multitaskStrategy?: MultitaskStrategy;
  config?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Subscribe with DEFAULT_CHANNELS first when the thread has no subscription (default true). */
  subscribe?: boolean;
}

export interface Answer {
  interruptId: string;
  value: unknown;
}

class LiveSubscription implements Subscription {
  subscriptionId: string | undefined;
  /** The hub accepted it once: a reconnect restores it (others are still in flight). */
  established = false;
  constructor(
    readonly filter: SubscriptionFilter,
    readonly owner: ThreadHandle,
  ) {}
  unsubscribe(): Promise<void> {
    return this.owner.unsubscribe(this);
  }
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export function requireString(result: Record<string, unknown>, field: string, method: string): string {
  const value = str(result[field]);
  if (value === undefined) throw new HubClientError("protocol_error", `${method}: the reply has no ${field}`, { method });
  return value;
}

export class ThreadHandle {
  readonly id: string;
  readonly #conn: Connection;
  readonly #emitter = new Emitter<ThreadEvents>();
  readonly #subs: LiveSubscription[] = [];
  #state: ThreadState;
  #gate: SeqGate = openGate();
  readonly #presence: LocalPresence;
  #treeCache: { source: ThreadState["tree"]; tree: AgentTree | null } | undefined;
  #presenceCache: { source: ThreadState["presence"]; list: PresenceEntry[] } | undefined;

  constructor(id: string, connection: Connection) {
    this.id = id;
    this.#conn = connection;
    this.#state = initialThreadState(id);
    this.#presence = new LocalPresence((update) => {
      if (this.#conn.state === "open") this.#sendPresence(update, false).catch(() => undefined);
    });
  }

  on<K extends keyof ThreadEvents>(event: K, listener: (value: ThreadEvents[K]) => void): Unsubscribe {
    return this.#emitter.on(event, listener);
  }

  /** The same values as `on(event)`, as an async iterator (`break` unsubscribes). */
  iterate<K extends keyof ThreadEvents>(event: K, options?: IterateOptions): AsyncIterableIterator<ThreadEvents[K]> {
    return this.#emitter.iterate(event, options);
  }

  get state(): ThreadState {
    return this.#state;
  }
  get values(): Record<string, unknown> | null {
    return this.#state.values;
  }
  get messages(): readonly MessageView[] {
    return this.#state.messages;
  }
  get tools(): readonly ToolRunView[] {
    return this.#state.tools;
  }
  get interrupts(): readonly InterruptView[] {
    return this.#state.interrupts.pending;
  }
  get resolved(): readonly ResolvedInterrupt[] {
    return this.#state.interrupts.resolved;
  }
  get status(): RunView {
    return this.#state.status;
  }
  /** Nested from the flat tree state; the same object until the tree changes. */
  get tree(): AgentTree | null {
    const source = this.#state.tree;
    if (this.#treeCache?.source !== source) this.#treeCache = { source, tree: buildTree(source) };
    return this.#treeCache.tree;
  }
  /** The same array until presence changes. */
  get presence(): PresenceEntry[] {
    const source = this.#state.presence;
    if (this.#presenceCache?.source !== source) this.#presenceCache = { source, list: presenceList(source) };
    return this.#presenceCache.list;
  }
  /** Highest seq applied (what a reconnect resumes from). */
  get lastSeq(): number {
    return this.#gate.lastSeq;
  }
  get subscriptions(): readonly Subscription[] {
    return this.#subs;
  }
  /** Listeners registered on this handle (tests assert it returns to 0). */
  get listenerCount(): number {
    return this.#emitter.listenerCount;
  }

  /** Follows the thread's events on these channels (prefix-matched namespaces, optional depth). */
  async subscribe(channels: readonly Channel[] = DEFAULT_CHANNELS, options: SubscribeOptions = {}): Promise<Subscription> {
    const filter: SubscriptionFilter = { channels: [...channels], namespaces: options.namespaces, depth: options.depth };
    const sub = new LiveSubscription(filter, this);
    this.#subs.push(sub);
    try {
      await this.#subscribeOnHub(sub, undefined, false);
    } catch (error) {
      this.#subs.splice(this.#subs.indexOf(sub), 1);
      throw error;
    }
    return sub;
  }

  /** @internal Used by Subscription.unsubscribe. */
  async unsubscribe(sub: LiveSubscription): Promise<void> {
    const at = this.#subs.indexOf(sub);
    if (at === -1) return;
    this.#subs.splice(at, 1);
    const id = sub.subscriptionId;
    sub.subscriptionId = undefined;
    // Until the hub confirms, the subscription still delivers: it covers what arrives meanwhile too.
    const ended = () => void (this.#gate = unsubscribed(this.#gate, sub.filter));
    if (id === undefined || this.#conn.state !== "open") return ended();
    try {
      await this.#conn.request({ thread_id: this.id, method: "subscription.unsubscribe", params: { subscription_id: id } }, { onSuccess: ended });
    } finally {
      ended();
    }
  }

  /**
   * Starts a run of `assistantId` on this thread; resolves with its run id.
   * `input`: an object of state updates, null to continue from the latest
   * checkpoint, or — on an interrupted thread — the answer (a value, or a map
   * of interrupt ids to answers), as docs/PROTOCOL.md "run.start" says.
   */
  async run(assistantId: string, input: unknown = null, options: RunOptions = {}): Promise<{ run_id: string }> {
    if (options.subscribe !== false && this.#subs.length === 0) await this.subscribe();
    const result = await this.#request({
      thread_id: this.id,
      method: "run.start",
      params: {
        assistant_id: assistantId,
        input,
        ...(options.multitaskStrategy === undefined ? {} : { multitask_strategy: options.multitaskStrategy }),
        ...(options.config === undefined ? {} : { config: options.config }),
        ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      },
    });
    return { run_id: requireString(result, "run_id", "run.start") };
  }

  /**
   * Answers one pending interrupt. `payloadDigest` (the item's `payload_digest` as
   * this reviewer saw it) makes the hub refuse the answer with `stale_payload` if
   * the item changed since.
   */
  async respond(interruptId: string, value: unknown, options: { payloadDigest?: string } = {}): Promise<{ run_id: string | undefined }> {
    const result = await this.#request({
      thread_id: this.id,
      method: "input.respond",
      params: {
        namespace: this.#namespaceOf(interruptId),
        interrupt_id: interruptId,
        response: value,
        ...(options.payloadDigest === undefined ? {} : { payload_digest: options.payloadDigest }),
      },
    });
    return { run_id: str(result["run_id"]) };
  }

  /** Moves a pending interrupt to another queue or candidates (`admin` / override roles), or delegates one's place (`users`). */
  async reassign(interruptId: string, target: ReassignRequest): Promise<{ queue: string; users: string[]; roles: string[] }> {
    const result = await this.#request({ thread_id: this.id, method: "input.reassign", params: { interrupt_id: interruptId, ...target } });
    return { queue: requireString(result, "queue", "input.reassign"), users: strings(result["users"]), roles: strings(result["roles"]) };
  }

  /** Answers several interrupts pending at once (parallel branches) in one resume. */
  async respondMany(answers: readonly Answer[]): Promise<{ run_id: string | undefined }> {
    const responses = answers.map((a) => ({ namespace: this.#namespaceOf(a.interruptId), interrupt_id: a.interruptId, response: a.value }));
    const result = await this.#request({ thread_id: this.id, method: "input.respond", params: { responses } });
    return { run_id: str(result["run_id"]) };
  }

  /** Leases an interrupt so other reviewers see it taken (`claim_held` if someone else has it). */
  async claim(interruptId: string, ttlMs?: number): Promise<{ interrupt_id: string; expires_at: number }> {
    const result = await this.#request({
      thread_id: this.id,
      method: "input.claim",
      params: { interrupt_id: interruptId, ...(ttlMs === undefined ? {} : { ttl_ms: ttlMs }) },
    });
    const expires = result["expires_at"];
    return { interrupt_id: interruptId, expires_at: typeof expires === "number" ? expires : Number.NaN };
  }

  async release(interruptId: string): Promise<void> {
    await this.#request({ thread_id: this.id, method: "input.release", params: { interrupt_id: interruptId } });
  }

  /** Cancels the active run (or `runId`). */
  async cancel(runId?: string): Promise<{ run_id: string }> {
    const result = await this.#request({ thread_id: this.id, method: "run.cancel", params: runId === undefined ? {} : { run_id: runId } });
    return { run_id: requireString(result, "run_id", "run.cancel") };
  }

  /** The hub's view of the root state (state.get), independent of the projections. */
  async getState(keys?: string[]): Promise<Record<string, unknown>> {
    const result = await this.#request({ thread_id: this.id, method: "state.get", params: { namespace: [], ...(keys ? { keys } : {}) } });
    const values = result["values"];
    return isRecord(values) ? { ...values } : {};
  }

  /**
   * Publishes this client's presence state (null = leave). It is renewed
   * every PRESENCE_RENEW_MS while set, and re-sent after a reconnect.
   */
  async setPresence(state: Record<string, unknown> | null): Promise<void> {
    await this.#sendPresence(this.#presence.set(state), false);
  }

  /** Drops every subscription and listener of this handle (and stops presence renewal). */
  async close(): Promise<void> {
    const subs = [...this.#subs];
    this.dispose();
    await Promise.allSettled(subs.map((s) => s.unsubscribe()));
  }

  /** @internal Stops timers and listeners without talking to the hub (the client is closing). */
  dispose(): void {
    this.#presence.dispose();
    this.#emitter.clear();
  }

  /** @internal The client hands every event of this thread here. */
  receive(event: ProtocolEvent): void {
    const decision = admit(this.#gate, event);
    this.#gate = decision.gate;
    if (!decision.apply) return;
    this.#replaceState(reduceThread(this.#state, event), event);
  }

  #replaceState(after: ThreadState, event: ProtocolEvent | null): void {
    const before = this.#state;
    this.#state = after;
    this.#emitChanges(before, after, event);
  }

  /** @internal The socket is gone: nothing delivers until restore(). */
  onDisconnect(): void {
    this.#gate = disconnected(this.#gate);
    for (const sub of this.#subs) sub.subscriptionId = undefined;
  }

  /** @internal A new socket is open: resubscribe each subscription from the last seq seen. */
  async restore(): Promise<void> {
    this.#gate = disconnected(this.#gate);
    // The hub sends the room's current states on resubscribe; who left meanwhile must go.
    this.#replaceState({ ...this.#state, presence: emptyPresence() }, null);
    const since = this.#gate.lastSeq;
    for (const sub of this.#subs.filter((s) => s.established)) await this.#subscribeOnHub(sub, since > 0 ? since : undefined, true);
    const update = this.#presence.restore();
    if (update !== null) await this.#sendPresence(update, true).catch(() => undefined);
  }

  #subscribeOnHub(sub: LiveSubscription, since: number | undefined, direct: boolean): Promise<void> {
    const { channels, namespaces, depth } = sub.filter;
    return this.#conn
      .request(
        {
          thread_id: this.id,
          method: "subscription.subscribe",
          params: { channels: [...channels], ...(namespaces ? { namespaces: namespaces.map((n) => [...n]) } : {}), ...(depth === undefined ? {} : { depth }), ...(since === undefined ? {} : { since }) },
        },
        {
          direct,
          // Synchronous, before the replay frames that follow the response are handled.
          onSuccess: (result) => {
            sub.subscriptionId = str(result["subscription_id"]);
            sub.established = true;
            this.#gate = subscribed(this.#gate, sub.filter, since);
          },
        },
      )
      .then(() => undefined);
  }

  #sendPresence(update: string, direct: boolean): Promise<Record<string, unknown>> {
    return this.#conn.request({ thread_id: this.id, method: "presence.update", params: { update } }, { direct });
  }

  #namespaceOf(interruptId: string): string[] {
    const found = this.#state.interrupts.pending.find((i) => i.interrupt_id === interruptId);
    return found ? [...found.namespace] : [];
  }

  #request(command: CommandInput): Promise<Record<string, unknown>> {
    return this.#conn.request(command);
  }

  #emitChanges(before: ThreadState, after: ThreadState, event: ProtocolEvent | null): void {
    const e = this.#emitter;
    if (before !== after) {
      if (before.values !== after.values) e.emit("values", after.values);
      if (before.messages !== after.messages) e.emit("messages", after.messages);
      if (before.tools !== after.tools) e.emit("tools", after.tools);
      if (before.interrupts.pending !== after.interrupts.pending) e.emit("interrupts", after.interrupts.pending);
      if (before.interrupts.resolved !== after.interrupts.resolved) e.emit("resolved", after.interrupts.resolved);
      if (before.status !== after.status) e.emit("status", after.status);
      if (before.tree !== after.tree) e.emit("tree", this.tree);
      if (before.presence !== after.presence) e.emit("presence", this.presence);
      e.emit("state", after);
    }
    if (event === null) return;
    if (event.method === "resync") e.emit("resync", resyncData(event));
    e.emit("event", event);
  }
}

const resyncData = (event: EventOf<"resync">): ResyncData => event.params.data;

/** Where `reassign` moves an interrupt; omitted fields keep their value. */
export interface ReassignRequest {
  queue?: string;
  users?: string[];
  roles?: string[];
  reason?: string;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
