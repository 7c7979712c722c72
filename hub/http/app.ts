/**
 * The hub's HTTP surface as a Hono app: REST reads, `POST /commands`, SSE
 * event streams, health and metrics. WebSockets are upgraded outside Hono
 * (see ws.ts) to keep per-connection memory low.
 */
import type { HttpBindings } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { checkOrigin, checkPermission, tokenExpiry, tokenFromRequest, withRequestSource, type Principal } from "../auth/index.ts";
import { SwitchboardError, THREADS_SNAPSHOT_MAX, decodeCommand, errorResponseOf } from "../protocol/index.ts";
import { threadRecordJson } from "../runs/index.ts";
import { renderReviewMetrics } from "../metrics.ts";
import type { HubServices } from "../services.ts";
import type { ThreadRecord } from "../runs/index.ts";
import { handleCommand } from "../sessions/commands.ts";
import { failResponse } from "./errors.ts";
import { openSseStream } from "./sse.ts";
import { SSE_HEADERS } from "./sse-frame.ts";
import { principalOf } from "../auth/request.ts";
import type { AppHooks } from "./hooks.ts";
import { addReviewRoutes } from "./reviews.ts";
import { addWebhookRoutes } from "./webhooks.ts";
import { addAuditExportRoutes } from "./audit-export.ts";
import { addLinkPageRoutes, addLinkRoutes } from "./links.ts";
import { addWebApp } from "./static.ts";
import { addLangGraphRoutes } from "./langgraph/index.ts";
import { addInfoRoutes } from "./langgraph/info.ts";
import { readJsonBody, requestBodyLimit } from "./body.ts";
import { RequestRateLimiter, restRateLimit } from "./rate-limit.ts";

type Env = { Bindings: Partial<HttpBindings>; Variables: { principal: Principal } };

function threadJson(thread: ThreadRecord, interrupts: Array<{ id: string; value: unknown }>) {
  return { ...threadRecordJson(thread), interrupts: interrupts.map((i) => ({ interrupt_id: i.id, payload: i.value })) };
}


/** The seq a `Last-Event-ID` header names (its leading digits); a header without them is refused. */
function sinceOfLastEventId(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seq = Number(/^\d+/.exec(header)?.[0] ?? Number.NaN);
  if (!Number.isSafeInteger(seq)) throw new SwitchboardError("invalid_argument", "Last-Event-ID must start with the seq of an event");
  return seq;
}

export function createApp(services: HubServices, hooks: AppHooks): Hono<Env> {
  const { store, runs, assistants, metrics, logs } = services;
  const app = new Hono<Env>();
  // Cross-site pages are refused before anything runs (a "simple" POST would run even if
  // CORS then hid the response); the CORS headers go only to configured origins.
  app.use("*", async (c, next) => {
    const refused = checkOrigin(c.req.raw.headers, services.origins);
    if (refused) return c.json({ error: refused.code, message: refused.message }, refused.status);
    await next();
  });
  app.use(
    "*",
    cors({
      origin: (origin) => (services.origins.allowed.has("*") || services.origins.allowed.has(origin) ? origin : null),
      allowHeaders: ["authorization", "content-type", "x-api-key", "last-event-id"],
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      // The LangGraph SDK reads a new run's id from Content-Location.
      exposeHeaders: ["content-location", "location"],
    }),
  );

  // One body limit in bytes for every route, enforced while the body is read.
  app.use("*", requestBodyLimit(services.limits));

  app.get("/health", (c) => c.json({ ok: true, auth: services.auth.mode, assistants: assistants.list().length }));
  app.get("/metrics", async (c) => {
    const text = metrics.render(logs.size, await store.countRunsByStatus(), services.subscriptions.retained) + renderReviewMetrics(services.presence.counts(), services.reviews.queues.size);
    return c.text(text, 200, { "content-type": "text/plain; version=0.0.4" });
  });

  addWebApp(app, hooks.webRoot);
  // The LangGraph API's /ok and /info answer before auth, as on the LangGraph server.
  addInfoRoutes(app);
  // An answer link is its own credential (signed, single use): its page's two routes come before auth.
  addLinkPageRoutes(app, services);

  app.use("*", async (c, next) => {
    const result = await principalOf(services.auth, c.req.raw.headers, new URL(c.req.url));
    if (!result.ok) {
      // The path without its query (?access_token= carries a token), the status and the reason: never the credential.
      services.logger.warn(`refused ${c.req.method} ${new URL(c.req.url).pathname}: ${result.message}`, { event: "auth.refused", transport: "http", method: c.req.method, path: new URL(c.req.url).pathname, status: result.status, code: result.code, reason: result.message });
    }
    if (!result.ok) return c.json({ error: result.code, message: result.message }, result.status, result.status === 401 ? { "www-authenticate": 'Bearer error="invalid_token"' } : {});
    // Where the request came from goes with the principal into what the audit records.
    c.set("principal", withRequestSource(result.principal, "http", c.env?.incoming?.socket.remoteAddress, c.req.header("user-agent")));
    await next();
  });
  app.use("*", restRateLimit(new RequestRateLimiter(services.limits), metrics));

  // Who the caller is, for pages that must show it (and when their token expires).
  app.get("/me", (c) => {
    const principal = c.get("principal");
    const found = services.auth.mode === "jwt" ? tokenFromRequest(c.req.raw.headers, new URL(c.req.url)) : undefined;
    const token = found?.ok ? found.token : undefined;
    return c.json({
      auth: services.auth.mode,
      principal: { sub: principal.sub, name: principal.name, tenant: principal.tenant, roles: [...principal.roles] },
      expires_at: tokenExpiry(token),
    });
  });

  app.get("/assistants", (c) =>
    c.json(assistants.list().map((a) => ({ assistant_id: a.id, graph_id: a.graph.name, description: a.description }))),
  );

  // Recent threads of the caller's tenant, newest first (the web app's threads list).
  app.get("/threads", async (c) => {
    try {
      const principal = c.get("principal");
      const denied = checkPermission(principal, "read");
      if (denied) throw new SwitchboardError("permission_denied", denied.message);
      const limit = Math.min(Math.max(Number(c.req.query("limit") ?? 50) || 50, 1), THREADS_SNAPSHOT_MAX);
      const threads = await store.listThreads(principal.tenant, { limit });
      return c.json({ threads: threads.map((t) => threadJson(t, [])) });
    } catch (error) {
      return failResponse(error);
    }
  });

  // Errors are 200 JSON on this route: the SDK reads a non-2xx as a transport failure.
  app.post("/threads/:thread_id/commands", async (c) => {
    // The body limit (maxFrameBytes, in bytes) was enforced while it was read.
    const text = await c.req.text();
    const decoded = decodeCommand(text, services.limits.maxJsonDepth);
    if (!decoded.ok) {
      metrics.framesRejected++;
      return c.json(errorResponseOf(decoded.error));
    }
    const outcome = await handleCommand(decoded.command, { principal: c.get("principal"), services, urlThreadId: c.req.param("thread_id"), host: undefined });
    return c.json(("finish" in outcome ? outcome.finish() : outcome).response);
  });

  const sse = async (c: Context<Env>) => {
    try {
      const principal = c.get("principal");
      const denied = checkPermission(principal, "read");
      if (denied) throw new SwitchboardError("permission_denied", denied.message);
      const body: unknown = await readJsonBody(c, services.limits, { channels: undefined });
      // The subscribe command's schema is the one schema for filters.
      const decoded = decodeCommand({ id: 0, method: "subscription.subscribe", params: body });
      if (!decoded.ok) throw new SwitchboardError("invalid_argument", decoded.error.message);
      if (decoded.command.method !== "subscription.subscribe") throw new SwitchboardError("invalid_argument", "bad stream filter");
      const { channels, namespaces, depth } = decoded.command.params;
      const filter = { channels, namespaces, depth };
      // A browser-style reconnect names its last event in Last-Event-ID (= the seq).
      const lastEventId = c.req.header("last-event-id");
      const since = decoded.command.params.since ?? sinceOfLastEventId(lastEventId);
      const thread = await runs.ensureThread(c.req.param("thread_id") ?? "", principal, true);
      const log = await runs.openLog(thread);
      const replay = log.replay(filter, since);
      const outgoing = c.env?.outgoing;
      const stream = openSseStream({
        log,
        filter,
        replay,
        services,
        hooks,
        signal: c.req.raw.signal,
        ...(outgoing ? { terminate: () => outgoing.destroy() } : {}),
      });
      return new Response(stream.body, { headers: SSE_HEADERS });
    } catch (error) {
      return failResponse(error);
    }
  };
  app.post("/threads/:thread_id/stream/events", sse);
  app.post("/threads/:thread_id/stream", sse);

  addReviewRoutes(app, services, hooks);
  addWebhookRoutes(app, services);
  addAuditExportRoutes(app, services);
  addLinkRoutes(app, services);
  addLangGraphRoutes(app, services, hooks);

  app.notFound((c) => c.json({ error: "not_found", message: `no route ${c.req.method} ${new URL(c.req.url).pathname}` }, 404));
  return app;
}
