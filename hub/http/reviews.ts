/**
 * REST and SSE for review items and queues: `GET /reviews/:interrupt_id`
 * (with a page of its audit trail), `POST /reviews/:interrupt_id/answer`,
 * `POST /reviews/:interrupt_id/reassign`, `GET /queues/:queue/items`,
 * `POST /queues/:queue/stream` (snapshot of open items, then live review
 * events, as SSE). Authorization is the review service's, per item.
 */
import type { HttpBindings } from "@hono/node-server";
import type { Hono } from "hono";
import { checkPermission, type Principal } from "../auth/index.ts";
import { SwitchboardError, commandSchema, encodeEvent, type ProtocolEvent } from "../protocol/index.ts";
import { mayAnswer } from "../review/index.ts";
import { auditJson, reviewItemJson } from "./review-json.ts";
import { refusalError, type AnswerExpectations } from "../review/index.ts";
import type { HubServices } from "../services.ts";
import { failResponse } from "./errors.ts";
import { SSE_HEADERS, sseFrameBytes } from "./sse-frame.ts";
import { openEventStream, type EventStreamSink } from "./event-stream.ts";
import type { AppHooks } from "./hooks.ts";
import { readJsonBody } from "./body.ts";

type Env = { Bindings: Partial<HttpBindings>; Variables: { principal: Principal } };

/** Audit lines per `GET /reviews/:id` page, unless `audit_limit` says otherwise (at most AUDIT_PAGE_MAX). */
export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 1000;

function pageParam(value: string | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > max || (name === "audit_limit" && n < 1)) {
    throw new SwitchboardError("invalid_argument", `${name} must be an integer in ${name === "audit_limit" ? 1 : 0}..${max}`);
  }
  return n;
}

export function addReviewRoutes<E extends Env>(app: Hono<E>, services: HubServices, hooks: AppHooks): void {
  const { reviews } = services;

  app.get("/reviews/:interrupt_id", async (c) => {
    try {
      const id = c.req.param("interrupt_id");
      const principal = c.get("principal");
      // The audit trail is paged: an item's trail is as long as its history.
      const offset = pageParam(c.req.query("audit_offset"), 0, Number.MAX_SAFE_INTEGER, "audit_offset");
      const limit = pageParam(c.req.query("audit_limit"), AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, "audit_limit");
      const found = await reviews.service.review(principal, id, { offset, limit: limit + 1 });
      if (!found.ok) throw refusalError(found, id);
      // Whether the caller may answer now, and if not the refusal they would get (pages show it before anyone types).
      const verdict = mayAnswer(principal, found.item, Date.now());
      const viewer = verdict.ok ? { may_answer: true } : { may_answer: false, code: verdict.code, reason: verdict.message };
      const audit = found.audit.slice(0, limit).map(auditJson);
      return c.json({ ...reviewItemJson(found.item), audit, audit_next_offset: found.audit.length > limit ? offset + limit : null, viewer });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.get("/threads/:thread_id/reviews", async (c) => {
    try {
      const principal = c.get("principal");
      const denied = checkPermission(principal, "read");
      if (denied) throw new SwitchboardError("permission_denied", denied.message);
      const thread = await services.runs.ensureThread(c.req.param("thread_id"), principal, false);
      const items = await reviews.service.reviewsOnThread(principal, thread.threadId);
      return c.json({ thread_id: thread.threadId, items: items.map(reviewItemJson) });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.post("/reviews/:interrupt_id/answer", async (c) => {
    try {
      const id = c.req.param("interrupt_id");
      const body: unknown = await readJsonBody(c, services.limits, undefined);
      if (typeof body !== "object" || body === null || !("response" in body)) throw new SwitchboardError("invalid_argument", 'the body must be { "response": <answer>, "payload_digest"?: <the item\'s digest> }');
      const answer = { interruptId: id, value: body.response, ...expectationsOf(body) };
      const { items, runIds, votes } = await reviews.answer(c.get("principal"), [answer], undefined);
      const item = items[0];
      return c.json({
        interrupt_id: id,
        ...(item?.answer ? { answered_by: item.answer.by, answered_at: Date.parse(item.answer.at) } : {}),
        resumed: runIds.length > 0,
        ...(runIds[0] === undefined ? {} : { run_id: runIds[0] }),
        ...(votes[0] === undefined ? {} : { vote: votes[0] }),
      });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.post("/reviews/:interrupt_id/reassign", async (c) => {
    try {
      const id = c.req.param("interrupt_id");
      const body: unknown = await readJsonBody(c, services.limits, undefined);
      const parsed = commandSchema.safeParse({ id: 0, method: "input.reassign", params: { ...(typeof body === "object" && body !== null ? body : {}), interrupt_id: id } });
      if (!parsed.success || parsed.data.method !== "input.reassign") {
        throw new SwitchboardError("invalid_argument", 'the body must be { "queue"?: string, "users"?: [string], "roles"?: [string], "reason"?: string }');
      }
      const { queue, users, roles, reason } = parsed.data.params;
      const target = { ...(queue === undefined ? {} : { queue }), ...(users === undefined ? {} : { users }), ...(roles === undefined ? {} : { roles }), ...(reason === undefined ? {} : { reason }) };
      const item = await reviews.reassign(c.get("principal"), id, target, undefined);
      return c.json(reviewItemJson(item));
    } catch (error) {
      return failResponse(error);
    }
  });

  app.get("/queues/:queue/items", async (c) => {
    try {
      const status = c.req.query("status") ?? "open";
      if (status !== "open") throw new SwitchboardError("invalid_argument", 'status must be "open" (open and claimed items you may answer)');
      const items = await reviews.service.openItemsFor(c.get("principal"), c.req.param("queue"));
      return c.json({ queue: c.req.param("queue"), items: items.map(reviewItemJson) });
    } catch (error) {
      return failResponse(error);
    }
  });

  app.post("/queues/:queue/stream", async (c) => {
    try {
      const principal = c.get("principal");
      const queue = c.req.param("queue");
      const frame = (event: ProtocolEvent): Uint8Array => sseFrameBytes(event.method, encodeEvent(event), event.event_id ?? "");
      // Subscribed before the snapshot is read, so nothing raised meanwhile is missed: held until the stream opens.
      let held: ProtocolEvent[] = [];
      let sink: EventStreamSink | undefined;
      const listenerId = reviews.queues.subscribe({
        principal,
        queue,
        deliver: (event) => {
          const copy: ProtocolEvent = { ...event, queue };
          if (sink) sink.write(frame(copy));
          else held.push(copy);
        },
      });
      let snapshot: ProtocolEvent[];
      try {
        const now = Date.now();
        const items = await reviews.service.openItemsFor(principal, queue);
        snapshot = items.flatMap((item) => reviews.appearance(item, now).map((e) => ({ ...e, queue })));
      } catch (error) {
        reviews.queues.unsubscribe(listenerId);
        throw error;
      }
      const outgoing = c.env?.outgoing;
      const stream = openEventStream({
        services,
        hooks,
        signal: c.req.raw.signal,
        label: `queue ${queue}`,
        logFields: { queue },
        ...(outgoing ? { terminate: () => outgoing.destroy() } : {}),
        open(opened) {
          for (const event of [...snapshot, ...held]) opened.write(frame(event));
          held = [];
          sink = opened;
          return () => reviews.queues.unsubscribe(listenerId);
        },
      });
      return new Response(stream.body, { headers: SSE_HEADERS });
    } catch (error) {
      return failResponse(error);
    }
  });
}

/** The `payload_digest` an answer body was bound to (what its sender saw), as the review service expects it. */
export function expectationsOf(body: object): { expect?: AnswerExpectations } {
  const digest = (body as { payload_digest?: unknown }).payload_digest;
  if (digest === undefined) return {};
  if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) {
    throw new SwitchboardError("invalid_argument", "payload_digest must be the item's payload_digest: 64 lowercase hex digits");
  }
  return { expect: { payloadDigest: digest } };
}
