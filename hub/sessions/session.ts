/**
 * One WebSocket connection's session, on the SocketPort (no `ws` here):
 * parses every inbound frame once, answers bad frames with typed errors and
 * lives on, rate-limits commands, processes them in order, and holds the
 * connection's subscriptions — one log attachment per thread, so an event is
 * sent at most once per connection however many filters it matches.
 * Also its review-queue subscriptions (an event the thread already brought
 * is not sent again), its watches of the tenant's thread records, and its
 * presence rooms (left on close).
 * Thread-bound (`/threads/:id/stream/events`) or multiplexed (`/ws`).
 */
import { nanoid } from "nanoid";
import type { Principal } from "../auth/index.ts";
import type { PresenceResult } from "../presence/index.ts";
import { channelOf, decodeCommand, encodeResponse, errorResponse, errorResponseOf, matchesSubscription } from "../protocol/index.ts";
import type { Channel, ErrorResponse, ProtocolEvent, SubscriptionFilter, ThreadRecordJson } from "../protocol/index.ts";
import { reviewInfo } from "../review/index.ts";
import type { PresenceRoomRef } from "../presence/index.ts";
import type { HubServices } from "../services.ts";
import { threadRecordJson, threadStatusEvent, type ThreadRecord } from "../runs/index.ts";
import type { LogEntry, LogSubscriber, ReplayResult, ThreadLog } from "../threads/index.ts";
import { handleCommand, type CommandReply, type SubscriptionHost } from "./commands.ts";
import { Outbox, type SocketPort } from "./outbox.ts";

/**
 * A connection's subscriptions to one thread. The first is held inline and
 * any later ones in a small array: most connections subscribe once per
 * thread, and a Map or two arrays per connection would cost more than that.
 */
class Attachment implements LogSubscriber {
  readonly log: ThreadLog;
  readonly #outbox: Outbox;
  #id: string | undefined;
  #filter: SubscriptionFilter | undefined;
  #more: Array<{ id: string; filter: SubscriptionFilter }> | undefined;

  constructor(log: ThreadLog, outbox: Outbox) {
    this.log = log;
    this.#outbox = outbox;
  }

  get size(): number {
    return (this.#id === undefined ? 0 : 1) + (this.#more?.length ?? 0);
  }

  /** The ids of its subscriptions. */
  ids(): string[] {
    return [...(this.#id === undefined ? [] : [this.#id]), ...(this.#more?.map((s) => s.id) ?? [])];
  }

  has(id: string): boolean {
    return this.#id === id || (this.#more?.some((s) => s.id === id) ?? false);
  }

  add(id: string, filter: SubscriptionFilter): void {
    if (this.#id === undefined) {
      this.#id = id;
      this.#filter = filter;
    } else {
      (this.#more ??= []).push({ id, filter });
    }
  }

  delete(id: string): boolean {
    if (this.#id === id) {
      const next = this.#more?.shift();
      this.#id = next?.id;
      this.#filter = next?.filter;
    } else {
      const i = this.#more?.findIndex((s) => s.id === id) ?? -1;
      if (i === -1) return false;
      this.#more?.splice(i, 1);
    }
    if (this.#more?.length === 0) this.#more = undefined;
    return true;
  }

  wants(event: ProtocolEvent, channel: Channel | null = channelOf(event)): boolean {
    if (this.#filter !== undefined && matchesSubscription(event, this.#filter, channel)) return true;
    for (const { filter } of this.#more ?? []) if (matchesSubscription(event, filter, channel)) return true;
    return false;
  }

  deliver(entry: LogEntry): void {
    this.#outbox.sendEntry(entry);
  }
}

export interface SessionOptions {
  port: SocketPort;
  principal: Principal;
  services: HubServices;
  /** The endpoint's thread; undefined on the multiplexed `/ws`. */
  threadId: string | undefined;
}

/**
 * Per-connection memory is a benchmark target (issue 7: at most 1.3× a bare
 * `ws` server's), hence the habits here: fields rather than option and
 * helper objects, no closures per connection, and the collections made on
 * first use, sized to what one connection usually holds.
 */
export class Session implements SubscriptionHost {
  readonly #principal: Principal;
  readonly #services: HubServices;
  /** The endpoint's thread; undefined on the multiplexed `/ws`. */
  readonly #threadId: string | undefined;
  readonly #outbox: Outbox;
  /**
   * One per subscribed thread, made on first subscribe: the attachment
   * itself while there is one (a thread endpoint never has more), a Map once
   * a multiplexed connection follows several threads.
   */
  #attachments: Attachment | Map<string, Attachment> | undefined;
  /** Command rate limit, a token bucket: tokens left, and when they were counted. */
  #tokens: number;
  #tokensAt = Date.now();
  /** Runs started here with `on_disconnect: "cancel"`. */
  #owned: Array<{ thread: ThreadRecord; runId: string }> | undefined;
  /** The command being handled and those queued behind it (arrival order); undefined when idle. */
  #chain: Promise<void> | undefined;
  #closed = false;
  /** This connection's id in presence rooms; set when it first joins one. */
  #presenceId: string | undefined;
  /** Queue subscriptions: id -> queue name. */
  #queues: Map<string, string> | undefined;
  /** `threads.subscribe` watchers of this connection (ids in services.threadWatch). */
  #threadWatches: Set<string> | undefined;

  constructor(options: SessionOptions) {
    this.#principal = options.principal;
    this.#services = options.services;
    this.#threadId = options.threadId;
    const { limits, metrics } = options.services;
    this.#outbox = new Outbox(options.port, limits, metrics, this);
    this.#tokens = limits.commandBurst;
  }

  /** 0 when a command may go now, else the ms until the next token. */
  #takeToken(): number {
    const { commandsPerSecond: rate, commandBurst: burst } = this.#services.limits;
    const now = Date.now();
    this.#tokens = Math.min(burst, this.#tokens + ((now - this.#tokensAt) / 1000) * rate);
    this.#tokensAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / rate) * 1000);
  }

  /** One inbound frame, as `ws` delivers it. */
  onFrame(data: Buffer, isBinary: boolean): void {
    if (this.#closed) return;
    const { limits } = this.#services;
    // Every frame spends a token, bad ones too, so a flood of junk is limited as well.
    const wait = this.#takeToken();
    if (isBinary) return this.#reject(errorResponse(null, "invalid_argument", "binary frames are not accepted; send commands as JSON text"));
    if (data.length > limits.maxFrameBytes) {
      return this.#reject(errorResponse(null, "payload_too_large", `frame is ${data.length} bytes; the limit is ${limits.maxFrameBytes}`, { limit: limits.maxFrameBytes }));
    }
    const decoded = decodeCommand(data.toString("utf8"), limits.maxJsonDepth);
    if (wait > 0) {
      this.#services.metrics.rateLimited++;
      const id = decoded.ok ? decoded.command.id : decoded.error.id;
      return this.#reject(errorResponse(id, "rate_limited", `too many commands; retry in ${wait} ms`, { retry_after_ms: wait }));
    }
    if (!decoded.ok) return this.#reject(errorResponseOf(decoded.error));
    const command = decoded.command;
    const chain = (this.#chain ?? Promise.resolve())
      .then(async () => {
        if (this.#closed) return;
        const outcome = await handleCommand(command, {
          principal: this.#principal,
          services: this.#services,
          urlThreadId: this.#threadId,
          host: this,
        });
        if (this.#closed) return;
        this.#send("finish" in outcome ? outcome.finish() : outcome);
      })
      .catch((error: unknown) => {
        this.#services.logger.error(`command ${command.method} crashed: ${String(error)}`);
      })
      .finally(() => {
        // Idle again: an idle connection holds no settled promise.
        if (this.#chain === chain) this.#chain = undefined;
      });
    this.#chain = chain;
  }

  #attachment(threadId: string): Attachment | undefined {
    const a = this.#attachments;
    if (a instanceof Map) return a.get(threadId);
    return a?.log.threadId === threadId ? a : undefined;
  }

  #allAttachments(): Iterable<Attachment> {
    const a = this.#attachments;
    if (a instanceof Map) return a.values();
    return a === undefined ? [] : [a];
  }

  #dropAttachment(threadId: string): void {
    const a = this.#attachments;
    if (a instanceof Map) {
      a.delete(threadId);
      if (a.size === 0) this.#attachments = undefined;
    } else if (a?.log.threadId === threadId) {
      this.#attachments = undefined;
    }
  }

  /** Joins a presence room, registering with the relay on the first one. */
  #joinPresence(room: PresenceRoomRef): ProtocolEvent | undefined {
    const { presence } = this.#services;
    if (this.#presenceId === undefined) {
      this.#presenceId = nanoid(12);
      presence.connect(this.#presenceId, this.#outbox);
    }
    return presence.join(room, this.#presenceId);
  }

  #leavePresence(room: PresenceRoomRef): void {
    if (this.#presenceId !== undefined) this.#services.presence.leave(room, this.#presenceId);
  }

  subscribe(log: ThreadLog, filter: SubscriptionFilter, since: number | undefined): { subscriptionId: string; replay: ReplayResult; presence?: ProtocolEvent } {
    const replay = log.replay(filter, since);
    const fresh = this.#attachment(log.threadId) === undefined;
    const attachment = this.#attachmentFor(log);
    const subscriptionId = nanoid(12);
    this.#add(attachment, subscriptionId, filter);
    const presence = fresh ? this.#joinPresence(this.#threadRoom(log.threadId)) : undefined;
    return { subscriptionId, replay, ...(presence ? { presence } : {}) };
  }

  async subscribeQueue(queue: string): Promise<{ subscriptionId: string; snapshot: ProtocolEvent[]; start: () => void }> {
    const { reviews, metrics } = this.#services;
    const principal = this.#principal;
    // Live events wait until the snapshot is out, so they never precede it.
    let held: ProtocolEvent[] | undefined = [];
    const subscriptionId = reviews.queues.subscribe({
      principal,
      queue,
      deliver: (event, item) => {
        // A connection that follows the thread got this event from the thread's log. Not so
        // input.requested: the queue's copy (named by `queue`) is what puts the item in the queue view.
        if (event.method !== "input.requested" && this.#attachment(item.threadId)?.wants(event)) return;
        const copy: ProtocolEvent =
          event.method === "input.requested" ? { ...event, queue: item.routing.queue, review: reviewInfo(item, reviews.assistantOf(item.threadId)) } : { ...event, queue: item.routing.queue };
        if (held) held.push(copy);
        else this.#outbox.sendEvent(copy);
      },
    });
    (this.#queues ??= new Map()).set(subscriptionId, queue);
    metrics.subscriptions++;
    const now = Date.now();
    const items = await reviews.service.openItemsFor(principal, queue);
    const assistants = new Map<string, string | null>();
    for (const item of items) if (!assistants.has(item.threadId)) assistants.set(item.threadId, await reviews.loadAssistantOf(item.threadId, item.tenant));
    const snapshot: ProtocolEvent[] = items.flatMap((item) =>
      reviews.appearance(item, now).map((e) => (e.method === "input.requested" ? { ...e, queue: item.routing.queue, review: reviewInfo(item, assistants.get(item.threadId) ?? null) } : { ...e, queue: item.routing.queue })),
    );
    const room = this.#joinPresence({ tenant: principal.tenant, kind: "queue", id: queue });
    if (room) snapshot.push(room);
    const start = (): void => {
      const events = held ?? [];
      held = undefined;
      if (!this.#closed) for (const event of events) this.#outbox.sendEvent(event);
    };
    return { subscriptionId, snapshot, start };
  }

  unsubscribeQueue(subscriptionId: string): boolean {
    const queue = this.#queues?.get(subscriptionId);
    if (queue === undefined) return false;
    this.#queues?.delete(subscriptionId);
    this.#services.reviews.queues.unsubscribe(subscriptionId);
    this.#services.metrics.subscriptions--;
    if (![...(this.#queues?.values() ?? [])].includes(queue)) {
      this.#leavePresence({ tenant: this.#principal.tenant, kind: "queue", id: queue });
    }
    return true;
  }

  async subscribeThreads(limit: number): Promise<{ subscriptionId: string; threads: ThreadRecordJson[]; start: () => void }> {
    const { threadWatch, store, metrics } = this.#services;
    const tenant = this.#principal.tenant;
    // Changes wait until the snapshot is out, so a client never sees a newer record overwritten by an older one.
    let held: Array<{ thread: ThreadRecord; deleted: boolean }> | undefined = [];
    const subscriptionId = threadWatch.subscribe({
      tenant,
      deliver: (thread, deleted) => {
        if (held) held.push({ thread, deleted });
        else this.#outbox.sendEvent(threadStatusEvent(thread, Date.now(), deleted));
      },
    });
    (this.#threadWatches ??= new Set()).add(subscriptionId);
    metrics.subscriptions++;
    let threads: ThreadRecord[];
    try {
      threads = await store.listThreads(tenant, { limit });
    } catch (error) {
      this.unsubscribeThreads(subscriptionId);
      throw error;
    }
    const start = (): void => {
      const changes = held ?? [];
      held = undefined;
      if (this.#closed) return;
      // What the snapshot already shows, or something older, is not sent (ISO stamps of one store order by text).
      const shown = new Map(threads.map((t) => [t.threadId, t.updatedAt]));
      for (const { thread, deleted } of changes) {
        const seen = shown.get(thread.threadId);
        if (deleted || seen === undefined || thread.updatedAt > seen) this.#outbox.sendEvent(threadStatusEvent(thread, Date.now(), deleted));
      }
    };
    return { subscriptionId, threads: threads.map(threadRecordJson), start };
  }

  unsubscribeThreads(subscriptionId: string): boolean {
    if (!this.#threadWatches?.delete(subscriptionId)) return false;
    this.#services.threadWatch.unsubscribe(subscriptionId);
    this.#services.metrics.subscriptions--;
    return true;
  }

  updatePresence(room: PresenceRoomRef, update: string): PresenceResult {
    // Never joined a room: the presence hub refuses it as not_joined.
    return this.#services.presence.update(room, this.#presenceId ?? "", this.#principal, update);
  }

  #threadRoom(threadId: string): PresenceRoomRef {
    return { tenant: this.#principal.tenant, kind: "thread", id: threadId };
  }

  restore(log: ThreadLog, subscriptionIds: readonly string[], since: number | undefined): { restored: string[]; replay: ReplayResult } {
    const found = subscriptionIds.flatMap((id) => {
      const info = this.#services.subscriptions.lookup(id, log.threadId, this.#principal.tenant);
      return info ? [{ id, filter: info.filter }] : [];
    });
    if (found.length === 0) return { restored: [], replay: { kind: "events", entries: [] } };
    const replay = log.replay(found.map((f) => f.filter), since);
    const attachment = this.#attachmentFor(log);
    for (const { id, filter } of found) {
      if (attachment.has(id)) continue;
      attachment.add(id, filter);
      this.#services.subscriptions.reclaim(id, { threadId: log.threadId, tenant: this.#principal.tenant, filter });
      this.#services.metrics.subscriptions++;
    }
    return { restored: found.map((f) => f.id), replay };
  }

  #attachmentFor(log: ThreadLog): Attachment {
    const existing = this.#attachment(log.threadId);
    if (existing) return existing;
    const attachment = new Attachment(log, this.#outbox);
    const current = this.#attachments;
    if (current === undefined) this.#attachments = attachment;
    else if (current instanceof Map) current.set(log.threadId, attachment);
    else this.#attachments = new Map([[current.log.threadId, current], [log.threadId, attachment]]);
    log.attach(attachment);
    return attachment;
  }

  #add(attachment: Attachment, id: string, filter: SubscriptionFilter): void {
    attachment.add(id, filter);
    this.#services.subscriptions.remember(id, { threadId: attachment.log.threadId, tenant: this.#principal.tenant, filter });
    this.#services.metrics.subscriptions++;
  }

  unsubscribe(threadId: string, subscriptionId: string): boolean {
    const attachment = this.#attachment(threadId);
    if (!attachment?.delete(subscriptionId)) return false;
    this.#services.subscriptions.forget(subscriptionId);
    this.#services.metrics.subscriptions--;
    if (attachment.size === 0) {
      attachment.log.detach(attachment);
      this.#dropAttachment(threadId);
      this.#leavePresence(this.#threadRoom(threadId));
    }
    return true;
  }

  cancelOnDisconnect(thread: ThreadRecord, runId: string): void {
    (this.#owned ??= []).push({ thread, runId });
  }

  /** Thread and queue subscriptions (the idle timeout spares a socket that has any). */
  get subscriptionCount(): number {
    let n = (this.#queues?.size ?? 0) + (this.#threadWatches?.size ?? 0);
    for (const a of this.#allAttachments()) n += a.size;
    return n;
  }

  /** The socket closed (or was terminated): drop every subscription. Idempotent. */
  /** The outbox dropped this connection: its reader fell behind the hard bound. Who and how far, never what. */
  slowConsumer(pendingBytes: number): void {
    this.#services.logger.warn(`dropped a slow consumer (${pendingBytes} bytes pending)`, {
      event: "slow_consumer.dropped",
      transport: "websocket",
      sub: this.#principal.sub,
      tenant: this.#principal.tenant,
      thread_id: this.#threadId ?? null,
      pending_bytes: pendingBytes,
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const attachment of this.#allAttachments()) {
      attachment.log.detach(attachment);
      this.#services.metrics.subscriptions -= attachment.size;
      // Kept (bounded in count, bytes and age) for a subscription.reconnect on another connection.
      for (const id of attachment.ids()) this.#services.subscriptions.release(id);
    }
    this.#attachments = undefined;
    for (const id of this.#queues?.keys() ?? []) {
      this.#services.reviews.queues.unsubscribe(id);
      this.#services.metrics.subscriptions--;
    }
    this.#queues = undefined;
    for (const id of this.#threadWatches ?? []) {
      this.#services.threadWatch.unsubscribe(id);
      this.#services.metrics.subscriptions--;
    }
    this.#threadWatches = undefined;
    if (this.#presenceId !== undefined) this.#services.presence.disconnect(this.#presenceId);
    this.#outbox.dispose();
    for (const { thread, runId } of this.#owned ?? []) {
      // no_such_run: it already ended, nothing to cancel.
      this.#services.runs.cancel(thread, runId).catch(() => undefined);
    }
  }

  #send(reply: CommandReply): void {
    this.#outbox.sendText(encodeResponse(reply.response));
    const replay = reply.replay;
    if (replay?.kind === "resync") this.#outbox.sendEvent(replay.event);
    else for (const entry of replay?.entries ?? []) this.#outbox.sendEntry(entry);
    for (const event of reply.after ?? []) this.#outbox.sendEvent(event);
    reply.afterSend?.();
  }

  #reject(response: ErrorResponse): void {
    this.#services.metrics.framesRejected++;
    this.#outbox.sendText(encodeResponse(response));
  }
}
