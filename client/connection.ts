/**
 * One multiplexed `/ws` connection: opens the socket (token from an option
 * or a function, asked again on every attempt), correlates each command with
 * its response by `id`, times requests out, and reconnects with backoff and
 * jitter. Commands issued while disconnected wait (within their timeout) and
 * are sent once the `onOpen` hook has restored the subscriptions.
 */
import { CLOSE_CODES, decodeServerMessage, encodeCommand } from "../hub/protocol/index.ts";
import type { ErrorResponse, ProtocolCommand, ProtocolEvent, ProtocolResponse, ServerMessage } from "../hub/protocol/index.ts";
import { DEFAULT_BACKOFF, backoffDelay, type BackoffOptions } from "./backoff.ts";
import { Emitter, type IterateOptions, type Unsubscribe } from "./emitter.ts";
import { HubClientError, closeCodeOfStatus, errorFromResponse, fatalCloseError } from "./errors.ts";
import type { ClientSocket, SocketFactory } from "./socket.ts";

/** A command without its `id` (the connection assigns it). */
export type CommandInput = ProtocolCommand extends infer C ? (C extends ProtocolCommand ? Omit<C, "id"> : never) : never;

export interface TokenContext {
  /**
   * How the previous connection ended (its close code, or 4000 + the HTTP status of a
   * refused upgrade); undefined on the first attempt. 4401 means the hub refused the last token.
   */
  closeCode: number | undefined;
}

/**
 * Asked for a token before every connection attempt. Throwing a non-retryable
 * HubClientError (e.g. `unauthenticated`) stops the client with that error.
 */
export type TokenProvider = (context: TokenContext) => string | undefined | Promise<string | undefined>;

export type ConnectionState = "idle" | "connecting" | "open" | "reconnecting" | "closed";

export interface ConnectionEvents {
  state: ConnectionState;
  /** Every decoded event frame, in arrival order. */
  event: ProtocolEvent;
  /** Problems that belong to no call: a fatal close, an undecodable frame, a failing token provider. */
  error: HubClientError;
}

export interface ConnectionOptions {
  /** Hub URL: `http(s)://host:port` or `ws(s)://…`; `/ws` is appended when missing. */
  url: string;
  token?: string | TokenProvider | undefined;
  socketFactory: () => Promise<SocketFactory>;
  requestTimeoutMs?: number | undefined;
  /** false = never reconnect. */
  reconnect?: Partial<BackoffOptions> | false | undefined;
  /**
   * Once the hub has pinged, a connection silent (no frame, no ping) for this
   * long is presumed dead (a half-open TCP connection) and cut, which starts a
   * reconnect. Default 75 s: the hub pings every 30 s.
   */
  idleTimeoutMs?: number | undefined;
  random?: (() => number) | undefined;
  /** Runs on each open before queued commands go out; commands it sends use `{ direct: true }`. */
  onOpen?: ((info: { reconnect: boolean }) => Promise<void>) | undefined;
}

export interface RequestOptions {
  timeoutMs?: number;
  /** Send as soon as the socket is open, ahead of queued commands (used by the onOpen hook). */
  direct?: boolean;
  /** Runs synchronously when the success arrives, before any later frame is handled. */
  onSuccess?: (result: Record<string, unknown>) => void;
}

interface Pending {
  id: number;
  text: string;
  method: string;
  direct: boolean;
  sent: boolean;
  timer: ReturnType<typeof setTimeout>;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: HubClientError) => void;
  onSuccess: ((result: Record<string, unknown>) => void) | undefined;
}

// The spec's response types are open records, which defeats narrowing on `type`;
// these guards run on frames that decodeServerMessage already checked.
const isEvent = (m: ServerMessage): m is ProtocolEvent => m.type === "event";
const isResponse = (m: ServerMessage): m is ProtocolResponse => m.type !== "event";
const isErrorResponse = (r: ProtocolResponse): r is ErrorResponse => r.type === "error";

export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 75_000;

export function socketUrl(url: string, token: string | undefined): string {
  const u = new URL(url);
  if (u.protocol === "http:") u.protocol = "ws:";
  if (u.protocol === "https:") u.protocol = "wss:";
  if (!u.pathname.endsWith("/ws")) u.pathname = `${u.pathname.replace(/\/$/, "")}/ws`;
  if (token !== undefined) u.searchParams.set("access_token", token);
  return u.toString();
}

export class Connection {
  readonly #o: ConnectionOptions;
  readonly #emitter = new Emitter<ConnectionEvents>();
  readonly #backoff: BackoffOptions | null;
  readonly #pending = new Map<number, Pending>();
  #state: ConnectionState = "idle";
  #socket: ClientSocket | undefined;
  /** The socket is open (direct commands may go out). */
  #socketOpen = false;
  /** The onOpen hook finished: every command may go out. */
  #ready = false;
  #everOpened = false;
  #attempt = 0;
  #nextId = 1;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #refusedStatus: number | undefined;
  #waiters: Array<{ resolve: () => void; reject: (e: HubClientError) => void }> = [];
  /** Set by the first ping of a connection; checks for silence from then on. */
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #lastHeard = 0;
  #lastCloseCode: number | undefined;
  /** How the last open connection ended (1001 = the hub shut down): the outage's cause, not its retries'. */
  #dropCode: number | undefined;

  constructor(options: ConnectionOptions) {
    this.#o = options;
    this.#backoff = options.reconnect === false ? null : { ...DEFAULT_BACKOFF, ...options.reconnect };
  }

  get state(): ConnectionState {
    return this.#state;
  }

  on<K extends keyof ConnectionEvents>(event: K, listener: (value: ConnectionEvents[K]) => void): Unsubscribe {
    return this.#emitter.on(event, listener);
  }

  iterate<K extends keyof ConnectionEvents>(event: K, options?: IterateOptions): AsyncIterableIterator<ConnectionEvents[K]> {
    return this.#emitter.iterate(event, options);
  }

  /** Reports a failure that belongs to no call (e.g. a thread that could not be restored). */
  emitError(error: HubClientError): void {
    this.#emitter.emit("error", error);
  }

  /** Commands awaiting a response (tests assert it drains to 0). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Opens the socket if needed; resolves once it is open and restored. */
  connect(): Promise<void> {
    if (this.#state === "closed") return Promise.reject(new HubClientError("client_closed", "the client is closed"));
    if (this.#state === "open") return Promise.resolve();
    const ready = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    if (this.#state === "idle") void this.#attemptOpen();
    return ready;
  }

  /** Sends a command; resolves with its `result`, rejects with a HubClientError. */
  request(command: CommandInput, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.#state === "closed") return Promise.reject(new HubClientError("client_closed", "the client is closed", { method: command.method }));
    const id = this.#nextId++;
    const text = encodeCommand({ ...command, id });
    const timeoutMs = options.timeoutMs ?? this.#o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        id,
        text,
        method: command.method,
        direct: options.direct === true,
        sent: false,
        onSuccess: options.onSuccess,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#pending.delete(id);
          reject(new HubClientError("timeout", `${command.method}: no response within ${timeoutMs} ms`, { method: command.method }));
        }, timeoutMs),
      };
      this.#pending.set(id, pending);
      if (this.#state === "idle") void this.#attemptOpen();
      this.#flush();
    });
  }

  /** Closes for good: pending calls fail with `client_closed`. */
  close(): void {
    if (this.#state === "closed") return;
    clearTimeout(this.#retryTimer);
    this.#stopWatchdog();
    this.#setState("closed");
    const error = new HubClientError("client_closed", "the client was closed");
    this.#failAll(error, () => true);
    for (const w of this.#waiters.splice(0)) w.reject(error);
    const socket = this.#socket;
    this.#socket = undefined;
    this.#socketOpen = false;
    this.#ready = false;
    socket?.close(1000, "client closed");
  }

  /** A method, not a field read: the state changes across awaits. */
  #isClosed(): boolean {
    return this.#state === "closed";
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#emitter.emit("state", state);
  }

  #flush(): void {
    const socket = this.#socket;
    if (!socket || !this.#socketOpen) return;
    for (const p of this.#pending.values()) {
      if (p.sent || (!this.#ready && !p.direct)) continue;
      p.sent = true;
      socket.send(p.text);
    }
  }

  async #token(): Promise<string | undefined> {
    const token = this.#o.token;
    return typeof token === "function" ? await token({ closeCode: this.#lastCloseCode }) : token;
  }

  async #attemptOpen(): Promise<void> {
    if (this.#state === "closed") return;
    this.#setState(this.#everOpened ? "reconnecting" : "connecting");
    this.#refusedStatus = undefined;
    let socket: ClientSocket;
    try {
      const factory = await this.#o.socketFactory();
      const token = await this.#token();
      if (this.#isClosed()) return;
      const viaHeader = factory.supportsHeaders === true && token !== undefined;
      const url = socketUrl(this.#o.url, viaHeader ? undefined : token);
      const headers: Record<string, string> = viaHeader ? { authorization: `Bearer ${token}` } : {};
      socket = await factory({ url, headers }, {
        onOpen: () => void this.#onOpen(socket),
        onMessage: (text) => {
          this.#lastHeard = Date.now();
          this.#onMessage(text);
        },
        onPing: () => this.#onPing(socket),
        onError: (_message, status) => {
          if (status !== undefined) this.#refusedStatus = status;
        },
        onClose: (code, reason) => this.#onClose(socket, code, reason),
      });
      if (this.#isClosed()) {
        socket.close(1000, "client closed");
        return;
      }
    } catch (error) {
      // A token provider that throws a non-retryable HubClientError (say `unauthenticated`:
      // the token expired and there is no new one) stops the client instead of retrying.
      if (error instanceof HubClientError && !error.retryable) return this.#stop(error);
      const message = error instanceof Error ? error.message : String(error);
      this.#emitter.emit("error", new HubClientError("connection_lost", `cannot open the connection: ${message}`));
      this.#scheduleRetry();
      return;
    }
    this.#socket = socket;
  }

  async #onOpen(socket: ClientSocket): Promise<void> {
    if (this.#socket !== socket || this.#state === "closed") return;
    this.#socketOpen = true;
    this.#dropCode = undefined;
    const reconnect = this.#everOpened;
    this.#everOpened = true;
    this.#flush();
    try {
      await this.#o.onOpen?.({ reconnect });
    } catch {
      // The socket dropped while restoring; onClose schedules the next attempt.
    }
    if (this.#socket !== socket || !this.#socketOpen) return;
    this.#ready = true;
    this.#attempt = 0;
    this.#setState("open");
    this.#flush();
    for (const w of this.#waiters.splice(0)) w.resolve();
  }

  #onPing(socket: ClientSocket): void {
    this.#lastHeard = Date.now();
    if (this.#watchdog !== undefined || this.#socket !== socket) return;
    const limit = this.#o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#watchdog = setInterval(() => {
      if (Date.now() - this.#lastHeard > limit) socket.terminate();
    }, Math.max(10, Math.floor(limit / 4)));
  }

  #stopWatchdog(): void {
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  #onMessage(text: string): void {
    const decoded = decodeServerMessage(text);
    if (!decoded.ok) {
      this.#emitter.emit("error", new HubClientError("protocol_error", `undecodable frame from the hub: ${decoded.error.message}`));
      return;
    }
    const message = decoded.message;
    if (isEvent(message)) this.#emitter.emit("event", message);
    else if (isResponse(message)) this.#settle(message);
  }

  #settle(response: ProtocolResponse): void {
    const pending = response.id === null ? undefined : this.#pending.get(response.id);
    if (!pending) {
      // An error about a frame the hub could not read has id null: nobody to tell but the client.
      if (isErrorResponse(response)) this.#emitter.emit("error", errorFromResponse(response));
      return;
    }
    this.#pending.delete(pending.id);
    clearTimeout(pending.timer);
    if (isErrorResponse(response)) return pending.reject(errorFromResponse(response, pending.method));
    const result: Record<string, unknown> = { ...response.result };
    pending.onSuccess?.(result);
    pending.resolve(result);
  }

  #onClose(socket: ClientSocket, code: number, reason: string): void {
    if (this.#socket !== socket) return;
    this.#stopWatchdog();
    this.#socket = undefined;
    if (this.#socketOpen) this.#dropCode = code;
    this.#socketOpen = false;
    this.#ready = false;
    if (this.#state === "closed") return;
    // Whatever was sent may or may not have been applied: the caller decides.
    this.#failAll(new HubClientError("connection_lost", `the connection closed (${code}) before the response arrived`, { closeCode: code }), (p) => p.sent);
    const status = this.#refusedStatus;
    const effective = status === undefined ? code : (closeCodeOfStatus(status) ?? code);
    this.#lastCloseCode = effective;
    const fatal = this.#fatal(effective, reason);
    if (fatal) return this.#stop(fatal);
    this.#scheduleRetry();
  }

  /** Gives up for good: the state becomes closed and every call fails with `error`. */
  #stop(error: HubClientError): void {
    clearTimeout(this.#retryTimer);
    this.#setState("closed");
    this.#emitter.emit("error", error);
    this.#failAll(error, () => true);
    for (const w of this.#waiters.splice(0)) w.reject(error);
  }

  /** 4403/4404 always; 4401 unless a token provider can supply a fresh token. */
  #fatal(code: number, reason: string): HubClientError | null {
    if (code === CLOSE_CODES.unauthenticated && typeof this.#o.token !== "function") {
      return new HubClientError("unauthenticated", reason || "the hub refused the token", { closeCode: code });
    }
    return fatalCloseError(code, reason);
  }

  #scheduleRetry(): void {
    if (this.#state === "closed") return;
    const backoff = this.#backoff;
    if (!backoff || this.#attempt >= backoff.maxAttempts) {
      // closeCode: how the connection that was lost ended (1001: the hub said it was shutting down).
      const error = new HubClientError("client_closed", backoff ? `gave up after ${this.#attempt} reconnect attempts` : "the connection closed and reconnect is off", { closeCode: this.#dropCode });
      this.#setState("closed");
      this.#failAll(error, () => true);
      for (const w of this.#waiters.splice(0)) w.reject(error);
      this.#emitter.emit("error", error);
      return;
    }
    const delay = backoffDelay(this.#attempt, backoff, this.#o.random);
    this.#attempt++;
    this.#setState("reconnecting");
    this.#retryTimer = setTimeout(() => void this.#attemptOpen(), delay);
  }

  #failAll(error: HubClientError, which: (p: Pending) => boolean): void {
    for (const p of [...this.#pending.values()]) {
      if (!which(p)) continue;
      this.#pending.delete(p.id);
      clearTimeout(p.timer);
      p.reject(new HubClientError(error.code, error.message, { method: p.method, closeCode: error.closeCode }));
    }
  }
}
