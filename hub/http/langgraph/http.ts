/**
 * What every LangGraph API route shares: the Hono env, JSON bodies read with
 * the hub's one body limit, errors as the LangGraph server's HTTP statuses with a JSON
 * body (`detail` as the Python server writes it, plus Switchboard's `error`
 * code and `details`), and the permission check.
 */
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import { checkPermission, type Principal, type ThreadAction } from "../../auth/index.ts";
import { SwitchboardError } from "../../protocol/index.ts";
import { failResponse } from "../errors.ts";
import type { HubLimits } from "../../config.ts";
import { readJsonBody } from "../body.ts";

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

/** The JSON body ({} when empty); the body limit was enforced while it was read (body.ts), malformed or too deep JSON is an invalid_argument. */
export function readJson(c: LgContext, limits: Pick<HubLimits, "maxFrameBytes" | "maxJsonDepth">): Promise<unknown> {
  return readJsonBody(c, limits);
}

export function requirePermission(principal: Principal, action: ThreadAction): void {
  const denied = checkPermission(principal, action);
  if (denied) throw new SwitchboardError("permission_denied", denied.message);
}

/** A query flag as the SDK sends it ("1"/"0", "true"/"false"). */
export function queryFlag(value: string | undefined): boolean {
  return value === "1" || value === "true";
}
