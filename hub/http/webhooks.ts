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

  app.get("/webhooks/endpoints", (c) => {
    try {
      const principal = c.get("principal");
      requireAdmin(principal);
      return c.json({ endpoints: dispatcher?.endpoints(principal.tenant) ?? [] });
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
      dispatcher?.wake();
      if (after === undefined) throw new SwitchboardError("not_found", `no webhook delivery ${id}`);
      return c.json(deliveryJson(after));
    } catch (error) {
      return failResponse(error);
    }
  });
}
