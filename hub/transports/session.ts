/**
 * One WebSocket connection's session, on the SocketPort (no `ws` here):
 * parses every inbound frame once, answers bad frames with typed errors and
 * lives on, rate-limits commands, processes them in order, and holds the
 * connection's subscriptions — one log attachment per thread, so an event is
 * sent at most once per connection however many filters it matches.
 * Also its review-queue subscriptions (an event the thread already brought
 * is not sent again) and its presence rooms (left on close).
 * Thread-bound (`/threads/:id/stream/events`) or multiplexed (`/ws`).
 */
import { nanoid } from "nanoid";
import type { Principal } from "../auth/index.ts";
import type { PresenceResult } from "../presence/index.ts";
import { channelOf, decodeCommand, encodeResponse, errorResponse, errorResponseOf, matchesSubscription } from "../protocol/index.ts";
import type { Channel, ErrorResponse, ProtocolEvent, SubscriptionFilter } from "../protocol/index.ts";
import { activeClaim, claimedEvent, requestedEvent } from "../review/index.ts";
import type { PresenceRoomRef } from "../reviewing/index.ts";
import type { HubServices } from "../services.ts";
import type { ThreadRecord } from "../store/index.ts";
import type { LogEntry, LogSubscriber, ReplayResult, ThreadLog } from "../threads/index.ts";
import { handleCommand, type CommandReply, type SubscriptionHost } from "./commands.ts";
import { Outbox, type SocketPort } from "./outbox.ts";

class Attachment implements LogSubscriber {
  readonly filters = new Map<string, SubscriptionFilter>();
  readonly log: ThreadLog;
  readonly #outbox: Outbox;

  constructor(log: ThreadLog, outbox: Outbox) {
    this.log = log;
    this.#outbox = outbox;
  }

  wants(event: ProtocolEvent, channel: Channel | null = channelOf(event)): boolean {
    for (const filter of this.filters.values()) if (matchesSubscription(event, filter, channel)) return true;
    return false;
  }

  deliver(entry: LogEntry): void {
    this.#outbox.sendEntry(entry);
  }
}

/** A token bucket: `rate` commands per second sustained, `burst` at once. */
class RateLimit {
  #tokens: number;
  #at = Date.now();
  constructor(
    readonly rate: number,
    readonly burst: number,
  ) {
    this.#tokens = burst;
  }

  /** 0 when allowed, else the ms until the next token. */
  take(): number {
    const now = Date.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.rate);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.rate) * 1000);
  }
}

export interface SessionOptions {
  port: SocketPort;
  principal: Principal;
  services: HubServices;
  /** The endpoint's thread; undefined on the multiplexed `/ws`. */
  threadId: string | undefined;
}

export class Session implements SubscriptionHost {
  readonly #o: SessionOptions;
  readonly #outbox: Outbox;
  /** One per subscribed thread; created on first subscribe (idle sockets stay small). */
  #attachments: Map<string, Attachment> | undefined;
  readonly #rate: RateLimit;
  /** Runs started here with `on_disconnect: "cancel"`. */
  #owned: Array<{ thread: ThreadRecord; runId: string }> | undefined;
  /** Commands of one connection are handled in arrival order. */
  #chain: Promise<void> = Promise.resolve();
  #closed = false;
  /** This connection's id in presence rooms. */
  readonly #id = nanoid(12);
  /** Queue subscriptions: id -> queue name. */
  #queues: Map<string, string> | undefined;

  constructor(options: SessionOptions) {
    this.#o = options;
    const { limits, metrics, presence } = options.services;
    this.#outbox = new Outbox(options.port, limits, metrics, () => this.close());
    this.#rate = new RateLimit(limits.commandsPerSecond, limits.commandBurst);
    presence.connect(this.#id, (event) => this.#outbox.sendEvent(event));
  }

  /** One inbound frame, as `ws` delivers it. */
  onFrame(data: Buffer, isBinary: boolean): void {
    if (this.#closed) return;
    const { limits } = this.#o.services;
    // Every frame spends a token, bad ones too, so a flood of junk is limited as well.
    const wait = this.#rate.take();
    if (isBinary) return this.#reject(errorResponse(null, "invalid_argument", "binary frames are not accepted; send commands as JSON text"));
    if (data.length > limits.maxFrameBytes) {
      return this.#reject(errorResponse(null, "payload_too_large", `frame is ${data.length} bytes; the limit is ${limits.maxFrameBytes}`, { limit: limits.maxFrameBytes }));
    }
    const decoded = decodeCommand(data.toString("utf8"));
    if (wait > 0) {
      this.#o.services.metrics.rateLimited++;
      const id = decoded.ok ? decoded.command.id : decoded.error.id;
      return this.#reject(errorResponse(id, "rate_limited", `too many commands; retry in ${wait} ms`, { retry_after_ms: wait }));
    }
    if (!decoded.ok) return this.#reject(errorResponseOf(decoded.error));
    const command = decoded.command;
    this.#chain = this.#chain.then(async () => {
      if (this.#closed) return;
      const outcome = await handleCommand(command, {
        principal: this.#o.principal,
        services: this.#o.services,
        urlThreadId: this.#o.threadId,
        host: this,
      });
      if (this.#closed) return;
      this.#send("finish" in outcome ? outcome.finish() : outcome);
    }).catch((error: unknown) => {
      this.#o.services.logger.error(`command ${command.method} crashed: ${String(error)}`);
    });
  }

  subscribe(log: ThreadLog, filter: SubscriptionFilter, since: number | undefined): { subscriptionId: string; replay: ReplayResult; presence?: ProtocolEvent } {
    const replay = log.replay(filter, since);
    const fresh = !this.#attachments?.has(log.threadId);
    const attachment = this.#attachmentFor(log);
    const subscriptionId = nanoid(12);
    this.#add(attachment, subscriptionId, filter);
    const presence = fresh ? this.#o.services.presence.join(this.#threadRoom(log.threadId), this.#id) : undefined;
    return { subscriptionId, replay, ...(presence ? { presence } : {}) };
  }

  async subscribeQueue(queue: string): Promise<{ subscriptionId: string; snapshot: ProtocolEvent[]; start: () => void }> {
    const { reviews, presence, metrics } = this.#o.services;
    const principal = this.#o.principal;
    // Live events wait until the snapshot is out, so they never precede it.
    let held: ProtocolEvent[] | undefined = [];
    const subscriptionId = reviews.queues.subscribe({
      principal,
      queue,
      deliver: (event, item) => {
        // A connection that follows the thread got this event from the thread's log. Not so
        // input.requested: the queue's copy (named by `queue`) is what puts the item in the queue view.
        if (event.method !== "input.requested" && this.#attachments?.get(item.threadId)?.wants(event)) return;
        const copy: ProtocolEvent = { ...event, queue: item.routing.queue };
        if (held) held.push(copy);
        else this.#outbox.sendEvent(copy);
      },
    });
    (this.#queues ??= new Map()).set(subscriptionId, queue);
    metrics.subscriptions++;
    const now = Date.now();
    const items = await reviews.service.openItemsFor(principal, queue);
    const snapshot: ProtocolEvent[] = items.flatMap((item) =>
      [requestedEvent(item, now), ...(activeClaim(item, now) ? [claimedEvent(item, now)] : [])].map((e) => ({ ...e, queue: item.routing.queue })),
    );
    const room = presence.join({ tenant: principal.tenant, kind: "queue", id: queue }, this.#id);
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
    this.#o.services.reviews.queues.unsubscribe(subscriptionId);
    this.#o.services.metrics.subscriptions--;
    if (![...(this.#queues?.values() ?? [])].includes(queue)) {
      this.#o.services.presence.leave({ tenant: this.#o.principal.tenant, kind: "queue", id: queue }, this.#id);
    }
    return true;
  }

  updatePresence(room: PresenceRoomRef, update: string): PresenceResult {
    return this.#o.services.presence.update(room, this.#id, this.#o.principal, update);
  }

  #threadRoom(threadId: string): PresenceRoomRef {
    return { tenant: this.#o.principal.tenant, kind: "thread", id: threadId };
  }

  restore(log: ThreadLog, subscriptionIds: readonly string[], since: number | undefined): { restored: string[]; replay: ReplayResult } {
    const found = subscriptionIds.flatMap((id) => {
      const info = this.#o.services.subscriptions.lookup(id, log.threadId, this.#o.principal.tenant);
      return info ? [{ id, filter: info.filter }] : [];
    });
    if (found.length === 0) return { restored: [], replay: { kind: "events", entries: [] } };
    const replay = log.replay(found.map((f) => f.filter), since);
    const attachment = this.#attachmentFor(log);
    for (const { id, filter } of found) if (!attachment.filters.has(id)) this.#add(attachment, id, filter);
    return { restored: found.map((f) => f.id), replay };
  }

  #attachmentFor(log: ThreadLog): Attachment {
    const attachments = (this.#attachments ??= new Map());
    let attachment = attachments.get(log.threadId);
    if (!attachment) {
      attachment = new Attachment(log, this.#outbox);
      attachments.set(log.threadId, attachment);
      log.attach(attachment);
    }
    return attachment;
  }

  #add(attachment: Attachment, id: string, filter: SubscriptionFilter): void {
    attachment.filters.set(id, filter);
    this.#o.services.subscriptions.remember(id, { threadId: attachment.log.threadId, tenant: this.#o.principal.tenant, filter });
    this.#o.services.metrics.subscriptions++;
  }

  unsubscribe(threadId: string, subscriptionId: string): boolean {
    const attachment = this.#attachments?.get(threadId);
    if (!attachment?.filters.delete(subscriptionId)) return false;
    this.#o.services.subscriptions.forget(subscriptionId);
    this.#o.services.metrics.subscriptions--;
    if (attachment.filters.size === 0) {
      attachment.log.detach(attachment);
      this.#attachments?.delete(threadId);
      this.#o.services.presence.leave(this.#threadRoom(threadId), this.#id);
    }
    return true;
  }

  cancelOnDisconnect(thread: ThreadRecord, runId: string): void {
    (this.#owned ??= []).push({ thread, runId });
  }

  /** Thread and queue subscriptions (the idle timeout spares a socket that has any). */
  get subscriptionCount(): number {
    let n = this.#queues?.size ?? 0;
    for (const a of this.#attachments?.values() ?? []) n += a.filters.size;
    return n;
  }

  /** The socket closed (or was terminated): drop every subscription. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const attachment of this.#attachments?.values() ?? []) {
      attachment.log.detach(attachment);
      this.#o.services.metrics.subscriptions -= attachment.filters.size;
    }
    this.#attachments = undefined;
    for (const id of this.#queues?.keys() ?? []) {
      this.#o.services.reviews.queues.unsubscribe(id);
      this.#o.services.metrics.subscriptions--;
    }
    this.#queues = undefined;
    this.#o.services.presence.disconnect(this.#id);
    this.#outbox.dispose();
    for (const { thread, runId } of this.#owned ?? []) {
      // no_such_run: it already ended, nothing to cancel.
      this.#o.services.runs.cancel(thread, runId).catch(() => undefined);
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
    this.#o.services.metrics.framesRejected++;
    this.#outbox.sendText(encodeResponse(response));
  }
}
