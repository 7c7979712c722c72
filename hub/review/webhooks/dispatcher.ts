/**
 * The webhook dispatcher: turns each published event into one outbox
 * delivery per matching endpoint (tenant, event types, queues), and runs the
 * delivery worker — claim due deliveries (a lease, so one node sends each),
 * POST them signed, record every attempt, retry with backoff (retry.ts).
 * Bounded: the body in bytes, the time a receiver may take, and the bytes of
 * its reply that are read (the rest is dropped unread).
 */
import { nanoid } from "nanoid";
import type { Logger } from "../../logger.ts";
import { DEFAULT_WEBHOOK_EVENTS, encodeWebhookBody, type WebhookEventInput } from "./events.ts";
import type { DeliveryAttempt, NewDelivery, WebhookDelivery, WebhookOutbox } from "./outbox.ts";
import { DEFAULT_RETRY, outcomeOf, type RetryPolicy } from "./retry.ts";
import { secretKey, signDelivery } from "./sign.ts";

/** One receiver of webhooks (`HubConfig.webhooks.endpoints[]`). */
export interface WebhookEndpointConfig {
  /** Stable name: deliveries refer to it (REST filter `endpoint`). */
  id: string;
  url: string;
  /** `whsec_` + base64 of 24–64 random bytes. */
  secret: string;
  /** The tenant whose events it gets. */
  tenant: string;
  /** Event types it gets (default DEFAULT_WEBHOOK_EVENTS); `"*"` = every type. */
  events?: readonly string[];
  /** Only review events of these queues (run events carry no queue and are then not sent). */
  queues?: readonly string[];
  /** `input.requested` carries an answer link per candidate user (`data.links`). */
  answerLinks?: boolean;
}

/** `HubConfig.webhooks`. */
export interface WebhooksConfig {
  endpoints: readonly WebhookEndpointConfig[];
  /** Tries before a delivery is failed (default 8). */
  maxAttempts?: number;
  /** First retry delay (default 1 s), doubled per try. */
  retryBaseMs?: number;
  /** Longest retry delay (default 10 min). */
  retryMaxMs?: number;
  /** How long a receiver may take to answer (default 10 s). */
  timeoutMs?: number;
  /** Largest body sent (default 256 KiB; a larger one goes without `data.payload`). */
  maxBodyBytes?: number;
  /** How often a node looks for due deliveries it was not told about (other nodes', restarts; default 1 s). */
  pollMs?: number;
  /** Epoch ms of due times (tests move it on); signatures always carry the real time. */
  clock?: () => number;
}

export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, maxBodyBytes: 256 * 1024, pollMs: 1_000 } as const;
/** Bytes of a receiver's reply kept in the attempt's error. */
const REPLY_BYTES = 512;
/** Deliveries one worker pass sends at once. */
const BATCH = 16;

export interface DispatcherOptions {
  outbox: WebhookOutbox;
  config: WebhooksConfig;
  nodeId: string;
  logger: Logger;
  /** Extra body fields for an endpoint's copy of an event (answer links); none when omitted. */
  extras?: (endpoint: WebhookEndpointConfig, event: WebhookEventInput) => Record<string, unknown>;
}

interface Endpoint {
  config: WebhookEndpointConfig;
  key: Buffer;
  events: Set<string>;
  managed: "config" | "rest";
}

const storedKey = (tenant: string, id: string): string => `${tenant}\u0000${id}`;

function endpointOf(config: WebhookEndpointConfig, managed: Endpoint["managed"]): Endpoint {
  return { config, key: secretKey(config.secret), events: new Set(config.events ?? DEFAULT_WEBHOOK_EVENTS), managed };
}

export class WebhookDispatcher {
  readonly #o: DispatcherOptions;
  readonly #clock: () => number;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #maxBody: number;
  readonly #pollMs: number;
  readonly #endpoints: Map<string, Endpoint>;
  /** REST-managed endpoints by tenant + id, re-read from the store at most every pollMs (other nodes' changes). */
  #stored = new Map<string, Endpoint>();
  #storedAt = Number.NEGATIVE_INFINITY;
  #storeFailing = false;
  #workerFailing = false;
  readonly #pending = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #again = false;
  #closed = false;

  constructor(options: DispatcherOptions) {
    this.#o = options;
    const c = options.config;
    this.#clock = c.clock ?? Date.now;
    this.#retry = { maxAttempts: c.maxAttempts ?? DEFAULT_RETRY.maxAttempts, retryBaseMs: c.retryBaseMs ?? DEFAULT_RETRY.retryBaseMs, retryMaxMs: c.retryMaxMs ?? DEFAULT_RETRY.retryMaxMs };
    this.#timeoutMs = c.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
    this.#maxBody = c.maxBodyBytes ?? WEBHOOK_DEFAULTS.maxBodyBytes;
    this.#pollMs = c.pollMs ?? WEBHOOK_DEFAULTS.pollMs;
    this.#endpoints = new Map(c.endpoints.map((e) => [e.id, endpointOf(e, "config")]));
  }

  /** A tenant's endpoints, the hub config's and the REST-managed ones (never their secrets). */
  async endpoints(tenant: string): Promise<Array<Omit<WebhookEndpointConfig, "secret"> & { managed: Endpoint["managed"] }>> {
    await this.refresh(true);
    return this.#all()
      .filter((e) => e.config.tenant === tenant)
      .map(({ config: { secret: _s, ...rest }, managed }) => (void _s, { ...rest, managed }));
  }

  /** Whether the hub config already names this id for the tenant (REST may not shadow it). */
  configured(tenant: string, id: string): boolean {
    const e = this.#endpoints.get(id);
    return e !== undefined && e.config.tenant === tenant;
  }

  #all(): Endpoint[] {
    return [...this.#endpoints.values(), ...this.#stored.values()];
  }

  /** Re-reads the REST-managed endpoints (at most every pollMs unless `force`). A failure keeps the last view. */
  async refresh(force = false): Promise<void> {
    const now = this.#clock();
    if (!force && now - this.#storedAt < this.#pollMs) return;
    this.#storedAt = now;
    try {
      const list = await this.#o.outbox.listEndpoints();
      const next = new Map<string, Endpoint>();
      for (const e of list) {
        const config: WebhookEndpointConfig = { id: e.id, url: e.url, secret: e.secret, tenant: e.tenant, ...(e.events === null ? {} : { events: e.events }), ...(e.queues === null ? {} : { queues: e.queues }), ...(e.answerLinks ? { answerLinks: true } : {}) };
        try {
          next.set(storedKey(e.tenant, e.id), endpointOf(config, "rest"));
        } catch (error) {
          this.#o.logger.error(`webhook endpoint ${e.id} of tenant ${e.tenant}: ${String(error)}`);
        }
      }
      this.#stored = next;
      this.#storeFailing = false;
    } catch (error) {
      // Said once per outage, not every poll.
      if (!this.#storeFailing) this.#o.logger.error(`webhook endpoints could not be read: ${String(error)}`);
      this.#storeFailing = true;
    }
  }

  #matches(endpoint: WebhookEndpointConfig, events: Set<string>, event: WebhookEventInput): boolean {
    if (endpoint.tenant !== event.tenant) return false;
    if (!events.has("*") && !events.has(event.type)) return false;
    if (endpoint.queues !== undefined) return event.queue !== null && endpoint.queues.includes(event.queue);
    return true;
  }

  /**
   * Writes the event's deliveries to the outbox (awaited: once it resolves,
   * the event survives a restart), then wakes the worker. Never throws: a
   * failure is logged.
   */
  async publish(event: WebhookEventInput): Promise<void> {
    if (this.#closed) return;
    await this.refresh();
    const eventId = `msg_${nanoid()}`;
    const deliveries: NewDelivery[] = [];
    for (const { config, events } of this.#all()) {
      if (!this.#matches(config, events, event)) continue;
      const extra = this.#o.extras?.(config, event) ?? {};
      deliveries.push({ id: `dlv_${nanoid()}`, eventId, tenant: event.tenant, endpointId: config.id, type: event.type, body: encodeWebhookBody(event, extra, this.#maxBody) });
    }
    if (deliveries.length === 0) return;
    try {
      await this.#o.outbox.enqueue(deliveries, this.#clock());
      this.wake();
    } catch (error) {
      this.#o.logger.error(`webhook ${event.type} not enqueued for ${deliveries.map((d) => d.endpointId).join(", ")}: ${String(error)}`);
    }
  }

  /** Starts the worker (due deliveries of a previous process go out now). */
  start(): void {
    this.wake();
  }

  /** Runs a worker pass now (or right after the one under way). */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = true;
    const pass = this.#pass()
      .then(() => {
        this.#workerFailing = false;
      })
      .catch((error: unknown) => this.#workerError(error))
      .finally(() => {
        this.#running = false;
        this.#pending.delete(pass);
        if (this.#again) {
          this.#again = false;
          this.wake();
        } else void this.#arm();
      });
    this.#pending.add(pass);
  }

  async #arm(): Promise<void> {
    if (this.#closed) return;
    let delay = this.#pollMs;
    try {
      const due = await this.#o.outbox.nextDue();
      if (due !== null) delay = Math.min(delay, Math.max(0, Date.parse(due) - this.#clock()));
    } catch (error) {
      this.#workerError(error);
    }
    if (this.#closed || this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.wake();
    }, delay);
    this.#timer.unref();
  }

  async #pass(): Promise<void> {
    await this.refresh();
    for (;;) {
      if (this.#closed) return;
      const lease = nanoid();
      // The lease outlasts one attempt (its timeout) with room to record it.
      const claimed = await this.#o.outbox.claimDue(this.#clock(), BATCH, this.#timeoutMs * 2 + 5_000, lease);
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((delivery) => this.#deliver(delivery, lease)));
      if (claimed.length < BATCH) return;
    }
  }

  async #deliver(delivery: WebhookDelivery, lease: string): Promise<void> {
    const configured = this.#endpoints.get(delivery.endpointId);
    const endpoint = configured !== undefined && configured.config.tenant === delivery.tenant ? configured : this.#stored.get(storedKey(delivery.tenant, delivery.endpointId));
    const started = this.#clock();
    const t0 = performance.now();
    const result = endpoint === undefined
      ? { ok: false, responseStatus: null, error: `endpoint ${delivery.endpointId} is no longer configured` }
      : await this.#post(endpoint.config.url, endpoint.key, delivery);
    const attempt: DeliveryAttempt = { at: new Date(started).toISOString(), ...result, durationMs: Math.round(performance.now() - t0), node: this.#o.nodeId };
    const now = this.#clock();
    const outcome = outcomeOf(result.ok, delivery.tries + 1, this.#retry, now);
    const kept = await this.#o.outbox.recordAttempt(delivery.id, lease, attempt, outcome, now);
    if (!kept) this.#o.logger.warn(`webhook delivery ${delivery.id}: its lease lapsed during the attempt; another node owns it now`);
    else if (outcome.status === "failed") this.#o.logger.warn(`webhook delivery ${delivery.id} (${delivery.type} to ${delivery.endpointId}) failed after ${delivery.tries + 1} tries: ${result.error ?? ""}`);
  }

  async #post(url: string, key: Buffer, delivery: WebhookDelivery): Promise<{ ok: boolean; responseStatus: number | null; error: string | null }> {
    // The attempt's own time: receivers refuse timestamps far from their clock.
    const headers = signDelivery(key, delivery.eventId, Math.floor(Date.now() / 1000), delivery.body);
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "user-agent": "switchboard-webhooks" },
        body: delivery.body,
        redirect: "manual",
        signal,
      });
      const ok = response.status >= 200 && response.status < 300;
      const reply = await readPrefix(response, REPLY_BYTES);
      return { ok, responseStatus: response.status, error: ok ? null : `HTTP ${response.status}${reply === "" ? "" : `: ${reply}`}` };
    } catch (error) {
      const timedOut = signal.aborted;
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
      return { ok: false, responseStatus: null, error: timedOut ? `no answer within ${this.#timeoutMs} ms` : `${error instanceof Error ? error.message : String(error)}${cause}`.slice(0, REPLY_BYTES) };
    }
  }

  /** A store failure of the worker, logged once per outage (it polls on; the next success clears it). */
  #workerError(error: unknown): void {
    if (!this.#workerFailing) this.#o.logger.error(`webhook worker: ${String(error)}`);
    this.#workerFailing = true;
  }

  /** Stops the worker; waits for the pass under way (its attempts are recorded). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([...this.#pending]);
  }

  /** Whether the worker's timer is armed (tests check it is gone after close). */
  get timerArmed(): boolean {
    return this.#timer !== undefined;
  }
}

/** The first `max` bytes of a reply as text; the rest is not read (the body is cancelled). */
async function readPrefix(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A reply cut short is still an answer; its status counts.
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, max).toString("utf8").replace(/[^\x20-\x7e]/g, "?");
}
