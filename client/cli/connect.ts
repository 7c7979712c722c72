/**
 * Opens a HubClient for a command: a quick `GET /health` first, so an
 * unreachable hub or a missing token fails fast with a message that says
 * what to do, then the socket, with reconnects reported on stderr.
 */
import { HubClient, HubClientError, type ThreadHandle } from "../index.ts";
import { CliError, type HubTarget } from "./args.ts";
import type { Output } from "./output.ts";

export interface Connected {
  client: HubClient;
  /** "jwt" or "open" (dev mode), as /health reports it. */
  auth: string;
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
  const client = new HubClient({
    url: target.url,
    ...(target.token === undefined ? {} : { token: target.token }),
    reconnect: { maxDelayMs: 5_000, maxAttempts: 20 },
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
  return { client, auth };
}

/** A HubClientError as a message for people. */
export function explain(error: unknown, target?: HubTarget): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof HubClientError) {
    if (error.code === "unauthenticated") return new CliError(`the hub refused the token (${error.message}). Mint a new one with \`switchboard token\`.`);
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
