/**
 * Answer links over REST. `POST /reviews/:interrupt_id/links` (admin, behind
 * the usual auth) mints one for a candidate. The link itself is the
 * credential of the two routes its page calls, which sit before the auth
 * middleware: `GET /links/:interrupt_id/:token` (the item, for the link's
 * holder) and `POST /links/:interrupt_id/:token/answer` (once).
 */
import type { Hono } from "hono";
import type { HttpBindings } from "@hono/node-server";
import type { Principal } from "../auth/index.ts";
import { USER_AGENT_MAX } from "../auth/index.ts";
import { SwitchboardError, isRecord } from "../protocol/index.ts";
import { parseDuration } from "../review/index.ts";
import type { HubServices } from "../services.ts";
import { readJsonBody } from "./body.ts";
import { failResponse } from "./errors.ts";
import { reviewItemJson } from "./review-json.ts";
import { expectationsOf } from "./reviews.ts";

type Env = { Bindings: Partial<HttpBindings>; Variables: { principal: Principal } };

function linksOf(services: HubServices) {
  if (services.links === undefined) throw new SwitchboardError("not_supported", "answer links need a key: set answerLinks.secret (or jwtSecret) in the hub config");
  return services.links;
}

/** The unauthenticated routes of a link's page: register before the auth middleware. */
export function addLinkPageRoutes<E extends Env>(app: Hono<E>, services: HubServices): void {
  app.get("/links/:interrupt_id/:token", async (c) => {
    try {
      const { claims, item } = await linksOf(services).open(c.req.param("interrupt_id"), c.req.param("token"));
      return c.json({ link: { sub: claims.sub, name: claims.name, expires_at: claims.expiresAt }, item: reviewItemJson(item) }, 200, { "cache-control": "no-store", "referrer-policy": "no-referrer" });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.post("/links/:interrupt_id/:token/answer", async (c) => {
    try {
      const id = c.req.param("interrupt_id");
      const body: unknown = await readJsonBody(c, services.limits, undefined);
      if (!isRecord(body) || !("response" in body)) throw new SwitchboardError("invalid_argument", 'the body must be { "response": <answer>, "payload_digest"?: <the item\'s digest> }');
      const agent = c.req.header("user-agent");
      const source = { remote: c.env?.incoming?.socket.remoteAddress ?? null, userAgent: agent === undefined || agent === "" ? null : agent.slice(0, USER_AGENT_MAX) };
      const { items, runIds } = await linksOf(services).answer(id, c.req.param("token"), { value: body["response"], ...expectationsOf(body) }, source);
      const item = items[0];
      return c.json({
        interrupt_id: id,
        ...(item?.answer ? { answered_by: item.answer.by, answered_at: Date.parse(item.answer.at) } : {}),
        resumed: runIds.length > 0,
        ...(runIds[0] === undefined ? {} : { run_id: runIds[0] }),
      });
    } catch (error) {
      return failResponse(error);
    }
  });
}

/** Minting, behind the auth middleware. */
export function addLinkRoutes<E extends Env>(app: Hono<E>, services: HubServices): void {
  app.post("/reviews/:interrupt_id/links", async (c) => {
    try {
      const body: unknown = await readJsonBody(c, services.limits, {});
      if (!isRecord(body) || typeof body["sub"] !== "string" || body["sub"] === "") throw new SwitchboardError("invalid_argument", 'the body must be { "sub": <candidate>, "name"?: string, "roles"?: [string], "ttl"?: "24h" | ms }');
      const { sub, name, roles, ttl } = body;
      if (name !== undefined && typeof name !== "string") throw new SwitchboardError("invalid_argument", "name must be a string");
      if (roles !== undefined && (!Array.isArray(roles) || !roles.every((r) => typeof r === "string"))) throw new SwitchboardError("invalid_argument", "roles must be a list of strings");
      const ttlMs = ttl === undefined ? undefined : typeof ttl === "number" || typeof ttl === "string" ? parseDuration(ttl) : undefined;
      if (ttl !== undefined && ttlMs === undefined) throw new SwitchboardError("invalid_argument", 'ttl must be milliseconds or a duration such as "2h"');
      const minted = await linksOf(services).mint(c.get("principal"), c.req.param("interrupt_id"), {
        sub,
        ...(name === undefined ? {} : { name }),
        ...(roles === undefined ? {} : { roles: roles as string[] }),
        ...(ttlMs === undefined ? {} : { ttlMs }),
      });
      return c.json(minted, 200, { "cache-control": "no-store" });
    } catch (error) {
      return failResponse(error);
    }
  });
}
