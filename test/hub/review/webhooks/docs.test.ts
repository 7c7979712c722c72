/**
 * The webhook examples in docs/PROTOCOL.md (`json webhook-example <name>`
 * blocks) have the shape — keys and value types, recursively — of what a real
 * hub sends a receiver and answers on REST. Values may differ; shapes may not.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it, vi } from "vitest";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { REVIEWER, authHeaders, reviewHub, startAndWait, WAIT } from "../e2e/helpers.ts";
import { startReceiver } from "./receiver.ts";

const protocol = readFileSync(fileURLToPath(new URL("../../../../docs/PROTOCOL.md", import.meta.url)), "utf8");
const examples = new Map<string, unknown>([...protocol.matchAll(/^```json webhook-example ([\w-]+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1] ?? "", JSON.parse(m[2] ?? "null")]));

type Shape = string | Shape[] | { [key: string]: Shape };
function shape(value: unknown): Shape {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

it("docs/PROTOCOL.md's webhook examples have the shape of what the hub sends", async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  const hub = await reviewHub({ webhooks: { endpoints: [{ id: "ops-hook", url: receiver.url, secret, tenant: "acme" }] } });
  const { ids: [id] } = await startAndWait(hub, "th_1", "gate", { review: { queue: "ops" } });
  await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
  const answered = await fetch(`${hub.url}/reviews/${id}/answer`, { method: "POST", headers: { ...(await authHeaders("rita", REVIEWER)), "content-type": "application/json" }, body: JSON.stringify({ response: "approve" }) });
  expect(answered.status).toBe(200);
  await vi.waitFor(() => expect(receiver.accepted.map((r) => r.type)).toEqual(["input.requested", "input.answered", "run.completed"]), WAIT);
  const actual = new Map<string, unknown>(receiver.accepted.map((r) => [`body-${r.type.replace(".", "-")}`, r.body]));
  const list = await fetch(`${hub.url}/webhooks/deliveries?limit=1`, { headers: await authHeaders("ada", ["admin"]) });
  actual.set("deliveries", await list.json());
  expect([...examples.keys()].sort()).toEqual([...actual.keys()].sort());
  for (const [name, body] of actual) expect(shape(examples.get(name)), `webhook-example ${name}`).toEqual(shape(body));
});
