/**
 * The hub's REST reads that have no socket command (health, assistants, a
 * review item with its audit trail), over `fetch` with the same token the
 * socket uses (an `Authorization: Bearer` header: fetch can set one, in
 * browsers too). Errors become HubClientErrors with the hub's code.
 */
import { isErrorCode, isRecord } from "../hub/protocol/index.ts";
import type { TokenProvider } from "./connection.ts";
import { HubClientError } from "./errors.ts";

export type FetchLike = (input: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  ok: boolean;
  status: number;
  text(): Promise<string>;
}>;

export interface RestOptions {
  /** The hub: `http(s)://host:port` (a `ws(s)://` or `/ws` URL is mapped back). */
  url: string;
  token?: string | TokenProvider | undefined;
  /** Default: `globalThis.fetch`. */
  fetch?: FetchLike | undefined;
  timeoutMs?: number | undefined;
}


/** The hub's HTTP origin for a client URL (`ws://h/ws` → `http://h`). */
export function httpBase(url: string): string {
  const u = new URL(url);
  if (u.protocol === "ws:") u.protocol = "http:";
  if (u.protocol === "wss:") u.protocol = "https:";
  u.pathname = u.pathname.replace(/\/ws$/, "").replace(/\/$/, "");
  u.search = "";
  u.hash = "";
  return u.toString().replace(/\/$/, "");
}

export class RestClient {
  readonly #base: string;
  readonly #o: RestOptions;

  constructor(options: RestOptions) {
    this.#o = options;
    this.#base = httpBase(options.url);
  }

  get(path: string): Promise<unknown> {
    return this.#send("GET", path, undefined);
  }

  post(path: string, body: unknown): Promise<unknown> {
    return this.#send("POST", path, body);
  }

  async #send(method: string, path: string, body: unknown): Promise<unknown> {
    const impl: FetchLike | undefined = this.#o.fetch ?? (typeof globalThis.fetch === "function" ? (globalThis.fetch.bind(globalThis) as FetchLike) : undefined);
    if (!impl) throw new HubClientError("client_closed", "no fetch implementation: pass `fetch`");
    const token = typeof this.#o.token === "function" ? await this.#o.token({ closeCode: undefined }) : this.#o.token;
    const headers: Record<string, string> = { accept: "application/json" };
    if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const signal = AbortSignal.timeout(this.#o.timeoutMs ?? 15_000);
    const label = `${method} ${path}`;
    let response: Awaited<ReturnType<FetchLike>>;
    try {
      response = await impl(`${this.#base}${path}`, { method, headers, signal, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      throw new HubClientError(timedOut ? "timeout" : "connection_lost", `${label}: ${error instanceof Error ? error.message : String(error)}`, { method: label });
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      throw new HubClientError("protocol_error", `${label}: the hub answered ${response.status} with a body that is not JSON`, { method: label });
    }
    if (response.ok) return parsed;
    const code = isRecord(parsed) ? parsed["error"] : undefined;
    const message = isRecord(parsed) && typeof parsed["message"] === "string" ? parsed["message"] : `${label}: HTTP ${response.status}`;
    const details = isRecord(parsed) && isRecord(parsed["details"]) ? parsed["details"] : undefined;
    throw new HubClientError(isErrorCode(code) ? code : "unknown_error", message, { method: label, details });
  }
}
