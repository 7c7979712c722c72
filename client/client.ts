/**
 * HubClient: one multiplexed `/ws` connection shared by every thread and
 * queue handle and the threads list. Routes each event by `thread_id` to its
 * thread handle (`input.*` events also to the queue handles they concern,
 * `thread.status` only to the threads list) and restores every subscription
 * after a reconnect before queued commands go out.
 */
import { ALL_QUEUES, QUEUE_EVENT_METHODS, assistantListSchema, healthSchema, reviewRecordSchema, threadListSchema, threadReviewsSchema, threadRecordSchema, whoAmISchema } from "../hub/protocol/index.ts";
import type { AssistantInfo, HealthInfo, ProtocolEvent, ReviewRecord, ThreadRecordJson, WhoAmI } from "../hub/protocol/index.ts";
import type { BackoffOptions } from "./backoff.ts";
import { Connection, type CommandInput, type ConnectionEvents, type ConnectionState, type TokenProvider } from "./connection.ts";
import type { IterateOptions, Unsubscribe } from "./emitter.ts";
import { HubClientError } from "./errors.ts";
import { QueueHandle } from "./queue.ts";
import { RestClient, type FetchLike } from "./rest.ts";
import { isNode, platformSocketFactory, type SocketFactory } from "./socket.ts";
import { ThreadHandle } from "./thread.ts";
import { ThreadListHandle } from "./thread-list.ts";

export interface HubClientOptions {
  /** The hub: `http://localhost:8787` (or `ws://…`, or the full `/ws` URL). */
  url: string;
  /** A bearer token, or a function asked for one before every (re)connect. */
  token?: string | TokenProvider;
  /** Defaults: `ws` in Node (token in a header), the platform WebSocket elsewhere (token in the query). */
  socketFactory?: SocketFactory;
  /** Per-command timeout (default 15 s). */
  requestTimeoutMs?: number;
  /** Backoff for reconnects; false = do not reconnect. */
  reconnect?: Partial<BackoffOptions> | false;
  /** Random source for jitter (tests). */
  random?: () => number;
  /** Node: a connection the hub has pinged and then gone silent on for this long is cut and reconnected (default 75 s). */
  idleTimeoutMs?: number;
  /** For the REST reads (`health()`, `me()`, …); default `globalThis.fetch`. */
  fetch?: FetchLike;
}

/** Parses a REST body with its schema; a body of another shape is a protocol_error. */
function parseBody<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } } }, body: unknown, label: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HubClientError("protocol_error", `${label}: unexpected reply: ${parsed.error.message}`, { method: label });
  return parsed.data;
}

/** A random thread id; `randomUUID` exists only in secure contexts, so fall back to random bytes. */
function newThreadId(): string {
  const { crypto } = globalThis;
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function defaultFactory(): Promise<SocketFactory> {
  if (isNode()) {
    const { nodeSocketFactory } = await import("./node-socket.ts");
    return nodeSocketFactory();
  }
  return platformSocketFactory();
}

const QUEUE_EVENTS: ReadonlySet<string> = new Set(QUEUE_EVENT_METHODS);

export class HubClient {
  readonly #conn: Connection;
  readonly #threads = new Map<string, ThreadHandle>();
  readonly #queues = new Map<string, QueueHandle>();
  #threadList: ThreadListHandle | undefined;
  readonly #offs: Unsubscribe[] = [];
  readonly #rest: RestClient;

  constructor(options: HubClientOptions) {
    const factory = options.socketFactory;
    this.#rest = new RestClient({ url: options.url, token: options.token, fetch: options.fetch, timeoutMs: options.requestTimeoutMs });
    this.#conn = new Connection({
      url: options.url,
      token: options.token,
      socketFactory: factory ? () => Promise.resolve(factory) : defaultFactory,
      requestTimeoutMs: options.requestTimeoutMs,
      reconnect: options.reconnect,
      random: options.random,
      idleTimeoutMs: options.idleTimeoutMs,
      onOpen: ({ reconnect }) => (reconnect ? this.#restore() : Promise.resolve()),
    });
    this.#offs.push(
      this.#conn.on("event", (event) => this.#route(event)),
      this.#conn.on("state", (state) => {
        if (state !== "reconnecting") return;
        for (const t of this.#threads.values()) t.onDisconnect();
        for (const q of this.#queues.values()) q.onDisconnect();
        this.#threadList?.onDisconnect();
      }),
    );
  }

  get state(): ConnectionState {
    return this.#conn.state;
  }

  /** Commands awaiting their response. */
  get pendingRequests(): number {
    return this.#conn.pendingCount;
  }

  /** `state` (connection), `event` (every event frame), `error` (failures that belong to no call). */
  on<K extends keyof ConnectionEvents>(event: K, listener: (value: ConnectionEvents[K]) => void): Unsubscribe {
    return this.#conn.on(event, listener);
  }

  /** The same values as `on(event)`, as an async iterator (`break` unsubscribes). */
  iterate<K extends keyof ConnectionEvents>(event: K, options?: IterateOptions): AsyncIterableIterator<ConnectionEvents[K]> {
    return this.#conn.iterate(event, options);
  }

  /** Connects now (otherwise the first command connects). */
  connect(): Promise<void> {
    return this.#conn.connect();
  }

  /** The handle of a thread (one per id); without an id, a new thread id is chosen. */
  thread(threadId: string = newThreadId()): ThreadHandle {
    let handle = this.#threads.get(threadId);
    if (!handle) {
      handle = new ThreadHandle(threadId, this.#conn);
      this.#threads.set(threadId, handle);
    }
    return handle;
  }

  /** The live list of a review queue's open items (one handle per name); call `subscribe()` to start. */
  queue(name: string): QueueHandle {
    let handle = this.#queues.get(name);
    if (!handle) {
      handle = new QueueHandle(name, this.#conn);
      this.#queues.set(name, handle);
    }
    return handle;
  }

  /** The tenant's recent threads with their status, live (one handle); call `subscribe()` to start. */
  threads(): ThreadListHandle {
    this.#threadList ??= new ThreadListHandle(this.#conn);
    return this.#threadList;
  }

  /** Sends any protocol command (the escape hatch); resolves with its `result`. */
  request(command: CommandInput, options: { timeoutMs?: number } = {}): Promise<Record<string, unknown>> {
    return this.#conn.request(command, options);
  }

  /** `GET /health`: liveness and the auth mode (`jwt` or `open`); needs no token. */
  async health(): Promise<HealthInfo> {
    return parseBody(healthSchema, await this.#rest.get("/health"), "GET /health");
  }

  /** `GET /me`: who the hub says this client is (principal, roles, token expiry). */
  async me(): Promise<WhoAmI> {
    return parseBody(whoAmISchema, await this.#rest.get("/me"), "GET /me");
  }

  /** `GET /assistants`: what `run()` may name. */
  async assistants(): Promise<AssistantInfo[]> {
    return parseBody(assistantListSchema, await this.#rest.get("/assistants"), "GET /assistants");
  }

  /** `GET /threads`: the tenant's recent threads with their status, newest first. */
  async listThreads(limit = 50): Promise<ThreadRecordJson[]> {
    return parseBody(threadListSchema, await this.#rest.get(`/threads?limit=${limit}`), "GET /threads").threads;
  }

  /** `GET /threads/:id`: one thread's record (assistant, status, metadata). */
  async getThread(threadId: string): Promise<ThreadRecordJson> {
    return parseBody(threadRecordSchema, await this.#rest.get(`/threads/${encodeURIComponent(threadId)}`), "GET /threads/:id");
  }

  /** `GET /reviews/:id`: one review item with its routing, answer, audit trail and whether this client may answer it. */
  async reviewItem(interruptId: string): Promise<ReviewRecord> {
    return parseBody(reviewRecordSchema, await this.#rest.get(`/reviews/${encodeURIComponent(interruptId)}`), "GET /reviews/:id");
  }

  /** `GET /threads/:id/reviews`: the thread's review items (any status, oldest first) this client may read. */
  async threadReviews(threadId: string): Promise<ReviewRecord[]> {
    return parseBody(threadReviewsSchema, await this.#rest.get(`/threads/${encodeURIComponent(threadId)}/reviews`), "GET /threads/:id/reviews").items;
  }

  /** Closes the connection; pending calls fail with `client_closed`. */
  close(): void {
    for (const off of this.#offs.splice(0)) off();
    for (const thread of this.#threads.values()) thread.dispose();
    for (const queue of this.#queues.values()) queue.dispose();
    this.#threadList?.dispose();
    this.#conn.close();
  }

  async #restore(): Promise<void> {
    const handles = [...this.#threads.values(), ...this.#queues.values(), ...(this.#threadList ? [this.#threadList] : [])];
    for (const handle of handles) {
      try {
        await handle.restore();
      } catch (error) {
        if (error instanceof HubClientError && error.code === "connection_lost") throw error;
        // One thread refused (deleted, access withdrawn): the others still resume.
        this.#conn.emitError(error instanceof HubClientError ? error : new HubClientError("unknown_error", String(error)));
      }
    }
  }

  #route(event: ProtocolEvent): void {
    // A threads-list change names a thread but is not one of its log events.
    if (event.method === "thread.status") return this.#threadList?.receive(event);
    const thread = event.thread_id === undefined ? undefined : this.#threads.get(event.thread_id);
    const threadSubscribed = thread !== undefined && thread.subscriptions.length > 0;
    // A queue's copy (unnumbered, named by its queue) is the queue's: the thread has its own events from its log,
    // and a copy may be of an item the log never lists (one action of a multi-action request).
    const queueCopy = event.seq === undefined && typeof Reflect.get(event, "queue") === "string";
    if (!queueCopy) thread?.receive(event);
    if (!QUEUE_EVENTS.has(event.method) || this.#queues.size === 0) return;
    for (const queue of this.#queues.values()) {
      if (wantsQueueEvent(queue, event, threadSubscribed)) queue.receive(event);
    }
  }
}

/**
 * Whether an event concerns a queue handle. `input.requested` joins a queue
 * when the hub names the queue (envelope `queue` or `data.queue`); unnamed,
 * when it came from a queue subscription: without a `seq` (the hub's queue
 * fan-out and snapshot send unnumbered copies), or numbered on a thread this
 * client does not follow. Later events of an item the queue holds always
 * apply; `presence` applies when its `data.queue` names the queue.
 */
function wantsQueueEvent(queue: QueueHandle, event: ProtocolEvent, threadSubscribed: boolean): boolean {
  if (!queue.subscribed) return false;
  switch (event.method) {
    case "input.requested": {
      const named: unknown = Reflect.get(event, "queue") ?? event.params.data["queue"];
      // The "*" handle follows every queue: any queue copy joins it.
      if (typeof named === "string") return named === queue.name || queue.name === ALL_QUEUES;
      return event.seq === undefined || !threadSubscribed;
    }
    case "input.answered":
      return event.params.data.interrupt_ids.some((id) => queue.knows(event.thread_id, id));
    case "input.claimed":
    case "input.released":
    case "input.expired":
    case "input.cancelled":
    case "input.escalated":
    case "input.reminder":
    case "input.reassigned":
    case "input.voted":
      return queue.knows(event.thread_id, event.params.data.interrupt_id);
    case "presence":
      return Reflect.get(event.params.data, "queue") === queue.name;
    default:
      return false;
  }
}
