/**
 * REST of the webhook outbox, admins only, per tenant: `GET /webhooks/endpoints`
 * (the configured receivers, without secrets), `GET /webhooks/deliveries`
 * (filters `status`, `endpoint`; paged by `after` + `limit`),
 * `GET /webhooks/deliveries/:id` (with every attempt) and
 * `POST /webhooks/deliveries/:id/replay` (a failed delivery is sent again).
 */
import type { Hono } from "hono";
import { ADMIN_ROLE, type Principal } from "../auth/index.ts";
import { SwitchboardError } from "../protocol/index.ts";
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from "../review/webhooks/outbox.ts";
import type { HubServices } from "../services.ts";
import { failResponse } from "./errors.ts";
import { readJsonBody } from "./body.ts";
import { newSecret, secretKey } from "../review/webhooks/sign.ts";
import { webhookEndpointFields } from "../config-schema.ts";
import { z } from "zod";

/** REST-managed endpoints per tenant. */
export const MAX_REST_ENDPOINTS = 50;

const endpointBodySchema = z.strictObject({
  url: webhookEndpointFields.url,
  secret: webhookEndpointFields.secret.optional(),
  events: webhookEndpointFields.events,
  queues: webhookEndpointFields.queues,
  answerLinks: z.boolean().optional(),
});

type Env = { Variables: { principal: Principal } };

export const DELIVERIES_PAGE_DEFAULT = 100;
export const DELIVERIES_PAGE_MAX = 500;

function requireAdmin(principal: Principal): void {
  if (!principal.roles.includes(ADMIN_ROLE)) throw new SwitchboardError("permission_denied", `webhook deliveries need the "${ADMIN_ROLE}" role; ${principal.sub} has [${principal.roles.join(", ")}]`);
}

/** A delivery on the wire; `body` is the JSON text as signed (so a receiver's check can be repeated). */
export function deliveryJson(d: WebhookDelivery) {
  return {
    delivery_id: d.id,
    seq: d.seq,
    webhook_id: d.eventId,
    endpoint: d.endpointId,
    type: d.type,
    status: d.status,
    tries: d.tries,
    next_attempt_at: d.nextAttemptAt === null ? null : Date.parse(d.nextAttemptAt),
    created_at: Date.parse(d.createdAt),
    updated_at: Date.parse(d.updatedAt),
    attempts: d.attempts.map((a) => ({ at: Date.parse(a.at), ok: a.ok, response_status: a.responseStatus, error: a.error, duration_ms: a.durationMs, node: a.node })),
    body: d.body,
  };
}

function intParam(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) throw new SwitchboardError("invalid_argument", `${name} must be an integer in ${min}..${max}`);
  return n;
}

export function addWebhookRoutes<E extends Env>(app: Hono<E>, services: HubServices): void {
  const { outbox, dispatcher } = services.webhooks;

  app.get("/webhooks/endpoints", async (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      return c.json({ endpoints: await dispatcher.endpoints(principal.tenant) });
    } catch (error) {
      return failResponse(error);
    }
  });

  // Creates or replaces one of the tenant's REST-managed endpoints; the answer carries its secret (only here).
  app.put("/webhooks/endpoints/:id", async (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      const id = c.req.param("id");
      const body = endpointBodySchema.safeParse(await readJsonBody(c, services.limits, undefined));
      if (!body.success) {
        const issue = body.error.issues[0];
        throw new SwitchboardError("invalid_argument", `${issue?.path.map(String).join(".") || "body"}: ${issue?.message ?? "invalid"}`);
      }
      if (!/^[A-Za-z0-9_.-]{1,100}$/.test(id)) throw new SwitchboardError("invalid_argument", "the endpoint id must be 1–100 letters, digits, _ . -");
      if (dispatcher.configured(principal.tenant, id)) throw new SwitchboardError("invalid_argument", `webhook endpoint ${id} is set in the hub config; change it there`);
      const existing = await outbox.listEndpoints(principal.tenant);
      if (!existing.some((e) => e.id === id) && existing.length >= MAX_REST_ENDPOINTS) throw new SwitchboardError("invalid_argument", `a tenant has at most ${MAX_REST_ENDPOINTS} REST-managed webhook endpoints`);
      const { url, events, queues, answerLinks } = body.data;
      const secret = body.data.secret ?? newSecret();
      try {
        secretKey(secret);
      } catch (error) {
        throw new SwitchboardError("invalid_argument", `secret: ${error instanceof Error ? error.message : String(error)}`);
      }
      const stored = await outbox.putEndpoint({ tenant: principal.tenant, id, url, secret, events: events ?? null, queues: queues ?? null, answerLinks: answerLinks ?? false, createdAt: "", updatedAt: "" }, Date.now());
      await dispatcher.refresh(true);
      return c.json({ id: stored.id, url: stored.url, tenant: stored.tenant, events: stored.events, queues: stored.queues, answerLinks: stored.answerLinks, managed: "rest", secret: stored.secret, created_at: Date.parse(stored.createdAt), updated_at: Date.parse(stored.updatedAt) });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.delete("/webhooks/endpoints/:id", async (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      const id = c.req.param("id");
      if (dispatcher.configured(principal.tenant, id)) throw new SwitchboardError("invalid_argument", `webhook endpoint ${id} is set in the hub config; remove it there`);
      if (!(await outbox.deleteEndpoint(principal.tenant, id))) throw new SwitchboardError("not_found", `no webhook endpoint ${id}`);
      await dispatcher.refresh(true);
      return c.body(null, 204);
    } catch (error) {
      return failResponse(error);
    }
  });

  app.get("/webhooks/deliveries", async (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      const status = c.req.query("status");
      if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) throw new SwitchboardError("invalid_argument", `status must be one of ${DELIVERY_STATUSES.join(", ")}`);
      const endpoint = c.req.query("endpoint");
      const limit = intParam(c.req.query("limit"), "limit", DELIVERIES_PAGE_DEFAULT, 1, DELIVERIES_PAGE_MAX);
      const after = intParam(c.req.query("after"), "after", 0, 0, Number.MAX_SAFE_INTEGER);
      const list = await outbox.list({
        tenant: principal.tenant,
        ...(status === undefined ? {} : { status: status as DeliveryStatus }),
        ...(endpoint === undefined ? {} : { endpointId: endpoint }),
        after,
        limit: limit + 1,
      });
      const page = list.slice(0, limit);
      return c.json({ deliveries: page.map(deliveryJson), next_after: list.length > limit ? (page.at(-1)?.seq ?? null) : null });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.get("/webhooks/deliveries/:id", async (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      const found = await outbox.get(principal.tenant, c.req.param("id"));
      if (found === undefined) throw new SwitchboardError("not_found", `no webhook delivery ${c.req.param("id")}`);
      return c.json(deliveryJson(found));
    } catch (error) {
      return failResponse(error);
    }
  });

  app.post("/webhooks/deliveries/:id/replay", async (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      const id = c.req.param("id");
      const before = await outbox.get(principal.tenant, id);
      if (before === undefined) throw new SwitchboardError("not_found", `no webhook delivery ${id}`);
      if (before.status !== "failed") throw new SwitchboardError("invalid_argument", `webhook delivery ${id} is ${before.status}: only a failed one is replayed`, { status: before.status });
      const after = await outbox.replay(principal.tenant, id, Date.now());
      dispatcher.wake();
      if (after === undefined) throw new SwitchboardError("not_found", `no webhook delivery ${id}`);
      return c.json(deliveryJson(after));
    } catch (error) {
      return failResponse(error);
    }
  });
}
