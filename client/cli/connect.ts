/**
 * Opens a HubClient for a command: a quick `GET /health` first, so an
 * unreachable hub or a missing token fails fast with a message that says
 * what to do, then the socket, with reconnects reported on stderr.
 */
import { DEFAULT_BACKOFF, HubClient, HubClientError, backoffDelay, type ThreadHandle } from "../index.ts";
import { CliError, EXIT, type ExitCode, type HubTarget } from "./args.ts";
import type { Output } from "./output.ts";

/** How a long-running command ends when the connection is gone for good. */
export interface Lost {
  exitCode: ExitCode;
  message: string;
}

export interface Connected {
  client: HubClient;
  /** "jwt" or "open" (dev mode), as /health reports it. */
  auth: string;
  /**
   * Resolves when the client gave up reconnecting (a few seconds, enough for
   * a restart): exit 0 when the hub said it was shutting down (close 1001),
   * the documented "the hub shut down"; exit 1 when the connection was lost.
   */
  lost: Promise<Lost>;
}

/** Delays grow from 250 ms (the client's default) to this cap. */
const CLI_MAX_DELAY_MS = 2_000;

/**
 * Reconnects ride out a hub restart for `reconnectMs` (10 s by default: eight
 * attempts), then the command stops: never retry forever. The attempts are
 * as many as the nominal delays (250, 500, 1000, 2000, 2000… ms) take to add
 * up to the budget; 0 stops at the first loss.
 */
export function cliReconnect(reconnectMs: number): { maxDelayMs: number; maxAttempts: number } {
  let attempts = 0;
  for (let spent = 0; spent < reconnectMs; attempts++) spent += backoffDelay(attempts, { ...DEFAULT_BACKOFF, maxDelayMs: CLI_MAX_DELAY_MS, jitter: 0 });
  return { maxDelayMs: CLI_MAX_DELAY_MS, maxAttempts: attempts };
}

const httpBase = (url: string): string => url.replace(/^ws/, "http");
const bearer = (target: HubTarget): Record<string, string> => (target.token === undefined ? {} : { authorization: `Bearer ${target.token}` });

/** The hub's `{ error, message }` body, or undefined. */
async function hubReason(response: Response): Promise<string | undefined> {
  const body: unknown = await response.json().catch(() => null);
  return typeof body === "object" && body !== null && "message" in body && typeof body.message === "string" ? body.message : undefined;
}

const refusedToken = (reason: string | undefined): CliError =>
  new CliError(`the hub refused the token${reason === undefined || reason === "" || reason === "the hub refused the token" ? "" : `: ${reason}`}. Mint a new one with \`switchboard token\`.`);

/**
 * A thread that exists on the hub (REST, which never creates one): a mistyped
 * id is said to have never run instead of being created and waited on forever.
 */
export async function requireThread(target: HubTarget, threadId: string): Promise<void> {
  const url = new URL(`/threads/${encodeURIComponent(threadId)}`, httpBase(target.url));
  const response = await fetch(url, { headers: bearer(target), signal: AbortSignal.timeout(10_000) });
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const reason = await hubReason(response);
  if (response.status === 404) {
    throw new CliError(`thread ${JSON.stringify(threadId)} has never run on this hub (${target.url}); check the id — \`switchboard run <assistant>\` prints it`);
  }
  if (response.status === 401) throw refusedToken(reason);
  if (response.status === 403) throw new CliError(`permission denied: ${reason ?? "forbidden"}`);
  throw new CliError(`the hub answered ${response.status} for thread ${JSON.stringify(threadId)}${reason === undefined ? "" : `: ${reason}`}`);
}

export async function connect(target: HubTarget, out: Output): Promise<Connected> {
  const health = new URL("/health", target.url.replace(/^ws/, "http"));
  let auth = "unknown";
  try {
    const response = await fetch(health, { signal: AbortSignal.timeout(5_000) });
    const body: unknown = await response.json().catch(() => null);
    if (typeof body === "object" && body !== null && "auth" in body && typeof body.auth === "string") auth = body.auth;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot reach the hub at ${target.url} (${cause}). Start one with \`switchboard serve\` (or \`npm start\`), or pass --url.`);
  }
  if (auth === "jwt" && target.token === undefined) {
    throw new CliError("this hub requires a token: pass --token or set SWITCHBOARD_TOKEN (mint one with `switchboard token --sub you --roles observer,reviewer`).");
  }
  if (auth === "jwt") {
    // A refused upgrade tells a socket only its status; REST says why (expired at …, bad signature…).
    const me = await fetch(new URL("/me", health), { headers: bearer(target), signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    if (me?.status === 401) throw refusedToken(await hubReason(me));
    await me?.body?.cancel();
  }
  const client = new HubClient({
    url: target.url,
    ...(target.token === undefined ? {} : { token: target.token }),
    reconnect: cliReconnect(target.reconnectMs),
  });
  const lost = new Promise<Lost>((resolve) => {
    client.on("error", (error) => {
      if (error.code !== "client_closed" || client.state !== "closed") return;
      if (error.closeCode === 1001) resolve({ exitCode: EXIT.ok, message: `the hub shut down (${target.url})` });
      else resolve({ exitCode: EXIT.error, message: `lost the connection to the hub at ${target.url} (${error.message})` });
    });
  });
  let opened = false;
  client.on("state", (state) => {
    if (state === "open") {
      if (opened) out.status("reconnected");
      opened = true;
    } else if (state === "reconnecting" && opened) {
      out.status("connection lost, reconnecting…");
    }
  });
  try {
    await client.connect();
  } catch (error) {
    client.close();
    throw explain(error, target);
  }
  return { client, auth, lost };
}

/** A HubClientError as a message for people. */
export function explain(error: unknown, target?: HubTarget): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof HubClientError) {
    if (error.code === "unauthenticated") return refusedToken(error.message);
    if (error.code === "permission_denied") {
      const roles = target?.token === undefined ? undefined : rolesOf(target.token);
      const hint = roles === undefined ? "" : ` — the token's roles are [${roles.join(", ")}]; watching and reviewing need "observer", answering "reviewer", starting runs "operator"`;
      return new CliError(`permission denied: ${error.message}${hint}`);
    }
    if (error.code === "thread_busy") return new CliError(`the thread has an active run (${error.message}); follow it with \`switchboard watch <thread>\``);
    const where = target ? ` (hub ${target.url})` : "";
    return new CliError(`${error.code}: ${error.message}${where}`);
  }
  return new CliError(error instanceof Error ? error.message : String(error));
}

/**
 * Resolves once the subscription's replay has been applied: the hub answers
 * commands in order with the events it sends, so any reply comes after it.
 */
export async function barrier(thread: ThreadHandle): Promise<void> {
  await thread.getState([]).catch(() => undefined);
}

/** True for a HubClientError with this code. */
export function hasCode(error: unknown, code: string): error is HubClientError {
  return error instanceof HubClientError && error.code === code;
}

/** The `roles` claim of a JWT, read without verifying it (for messages only). */
function rolesOf(token: string): string[] | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (typeof claims !== "object" || claims === null || !("roles" in claims) || !Array.isArray(claims.roles)) return undefined;
    return claims.roles.filter((r): r is string => typeof r === "string");
  } catch {
    return undefined;
  }
}
