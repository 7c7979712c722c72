/**
 * Webhook endpoints managed over REST, per tenant, admins only: an endpoint
 * created with PUT gets its secret once and receives signed events at once;
 * the list shows config and REST endpoints (never secrets); another tenant
 * sees none of it; a config endpoint cannot be shadowed or deleted; after
 * DELETE nothing more is sent to it. Stored, so another hub on the same
 * file (a restart) still sends to it.
 */
import { expect, it, vi } from "vitest";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { REVIEWER, authHeaders, reviewHub, startAndWait, tempDataDir, WAIT } from "../e2e/helpers.ts";
import { startReceiver } from "./receiver.ts";

type RunningHub = Awaited<ReturnType<typeof reviewHub>>;

async function call(hub: RunningHub, method: string, path: string, body?: unknown, roles: readonly string[] = ["admin"], tenant = "acme"): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const r = await fetch(`${hub.url}${path}`, { method, headers: { ...(await authHeaders("ada", roles, tenant)), "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, body: text === "" ? null : (JSON.parse(text) as Record<string, unknown>) };
}

it("PUT creates an endpoint that receives signed events; list, tenants, config clash, DELETE; it survives a restart", async () => {
  const dataDir = tempDataDir();
  const configSecret = newSecret();
  const configured = await startReceiver(configSecret);
  const first = await reviewHub({ dataDir, webhooks: { endpoints: [{ id: "cfg", url: configured.url, secret: configSecret, tenant: "acme", events: ["run.failed"] }], retryBaseMs: 20 } });

  // The secret is made by the hub and shown once; the receiver verifies with it.
  const created = await call(first, "PUT", "/webhooks/endpoints/chat", { url: "http://127.0.0.1:9/placeholder", events: ["input.requested"] });
  expect(created.status).toBe(200);
  const secret = String(created.body?.["secret"]);
  expect(secret).toMatch(/^whsec_/);
  const receiver = await startReceiver(secret);
  const replaced = await call(first, "PUT", "/webhooks/endpoints/chat", { url: receiver.url, secret, events: ["input.requested"], queues: ["ops"] });
  expect(replaced.body).toMatchObject({ id: "chat", url: receiver.url, tenant: "acme", events: ["input.requested"], queues: ["ops"], managed: "rest", secret });
  expect(replaced.body?.["created_at"]).toBe(created.body?.["created_at"]);

  await startAndWait(first, "ep-1", "gate", { review: { queue: "ops" } });
  await vi.waitFor(() => expect(receiver.accepted.map((r) => [r.type, r.verified])).toEqual([["input.requested", true]]), WAIT);

  const listed = await call(first, "GET", "/webhooks/endpoints");
  expect(listed.body).toEqual({
    endpoints: [
      { id: "cfg", url: configured.url, tenant: "acme", events: ["run.failed"], managed: "config" },
      { id: "chat", url: receiver.url, tenant: "acme", events: ["input.requested"], queues: ["ops"], managed: "rest" },
    ],
  });
  expect(JSON.stringify(listed.body)).not.toContain("whsec_");
  expect((await call(first, "GET", "/webhooks/endpoints", undefined, ["admin"], "globex")).body).toEqual({ endpoints: [] });
  expect((await call(first, "DELETE", "/webhooks/endpoints/chat", undefined, ["admin"], "globex")).status).toBe(404);
  expect((await call(first, "PUT", "/webhooks/endpoints/x", { url: receiver.url }, REVIEWER)).status).toBe(403);
  expect((await call(first, "PUT", "/webhooks/endpoints/cfg", { url: receiver.url })).body).toMatchObject({ error: "invalid_argument", message: expect.stringContaining("hub config") });
  expect((await call(first, "DELETE", "/webhooks/endpoints/cfg")).status).toBe(400);
  expect((await call(first, "PUT", "/webhooks/endpoints/bad", { url: "ftp://x" })).body).toMatchObject({ error: "invalid_argument", message: expect.stringContaining("url") });
  expect((await call(first, "PUT", "/webhooks/endpoints/bad", { url: receiver.url, secret: "whsec_short" })).status).toBe(400);
  expect((await call(first, "PUT", "/webhooks/endpoints/bad", { url: receiver.url, evnets: [] })).status).toBe(400);
  await first.close();

  // Stored: the next process on the same file sends to it too; then it is deleted and gets nothing more.
  const second = await reviewHub({ dataDir, webhooks: { endpoints: [{ id: "cfg", url: configured.url, secret: configSecret, tenant: "acme", events: ["run.failed"] }] } });
  await startAndWait(second, "ep-2", "gate", { review: { queue: "ops" } });
  await vi.waitFor(() => expect(receiver.accepted.map((r) => r.data["thread_id"])).toEqual(["ep-1", "ep-2"]), WAIT);
  expect((await call(second, "DELETE", "/webhooks/endpoints/chat")).status).toBe(204);
  await startAndWait(second, "ep-3", "gate", { review: { queue: "ops" } });
  const deliveries = (await call(second, "GET", "/webhooks/deliveries?endpoint=chat")).body?.["deliveries"] as unknown[];
  expect(deliveries).toHaveLength(2);
  expect(receiver.received.map((r) => r.data["thread_id"])).toEqual(["ep-1", "ep-2"]);
});
