/**
 * What every LangGraph API route shares: the Hono env, JSON bodies read with
 * a byte limit, errors as the LangGraph server's HTTP statuses with a JSON
 * body (`detail` as the Python server writes it, plus Switchboard's `error`
 * code and `details`), and the permission check.
 */
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import { checkPermission, type Principal, type ThreadAction } from "../../auth/index.ts";
import { SwitchboardError } from "../../protocol/index.ts";
import { failResponse } from "../errors.ts";

export type LgEnv = { Bindings: Partial<HttpBindings>; Variables: { principal: Principal } };
export type LgContext = Context<LgEnv>;

/**
 * An error response: the hub's one HTTP error body (hub/http/errors.ts) plus
 * `detail` as the Python server writes it and the details' fields at the top
 * level, where LangGraph clients read them.
 */
export function lgFail(error: unknown): Response {
  return failResponse(error, (_body, e) => ({ detail: e.message, ...e.details }));
}

/** Runs a handler; any throw becomes lgFail's response. */
export function handled(fn: (c: LgContext) => Promise<Response>): (c: LgContext) => Promise<Response> {
  return async (c) => {
    try {
      return await fn(c);
    } catch (error) {
      return lgFail(error);
    }
  };
}

/** The JSON body ({} when empty); too large or malformed bodies get a typed error. */
export async function readJson(c: LgContext, maxBytes: number): Promise<unknown> {
  const declared = Number(c.req.header("content-length") ?? 0);
  if (declared > maxBytes) throw tooLarge(declared, maxBytes);
  const text = await c.req.text();
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) throw tooLarge(bytes, maxBytes);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SwitchboardError("invalid_argument", `the request body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function tooLarge(bytes: number, maxBytes: number): SwitchboardError {
  return new SwitchboardError("payload_too_large", `the request body is ${bytes} bytes; the limit is ${maxBytes}`, { limit_bytes: maxBytes });
}

export function requirePermission(principal: Principal, action: ThreadAction): void {
  const denied = checkPermission(principal, action);
  if (denied) throw new SwitchboardError("permission_denied", denied.message);
}

/** A query flag as the SDK sends it ("1"/"0", "true"/"false"). */
export function queryFlag(value: string | undefined): boolean {
  return value === "1" || value === "true";
}
