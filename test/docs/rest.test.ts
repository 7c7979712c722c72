/**
 * The REST examples in docs/PROTOCOL.md (`json rest-example <name>` blocks)
 * have the shape — keys and value types, recursively — of what a real hub
 * answers, and the limits and metrics tables of docs/operations.md match
 * DEFAULT_LIMITS and GET /metrics. Values may differ (ids, times); shapes may not.
 * The review examples come from the demo run's real review item: listed,
 * claimed, answered twice (the second is already_answered), then read with
 * its audit trail.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../hub/index.ts";
import { WAIT, testHub } from "../support/hub.ts";

const read = (name: string): string => readFileSync(fileURLToPath(new URL(`../../docs/${name}`, import.meta.url)), "utf8");
const protocol = read("PROTOCOL.md");
const operations = read("operations.md");

const examples = new Map<string, unknown>(
  [...protocol.matchAll(/^```json rest-example ([\w-]+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1] ?? "", JSON.parse(m[2] ?? "null")]),
);

type Shape = string | Shape[] | { [key: string]: Shape };

/** Keys and value types; arrays element by element. A thread's `interrupts` is keyed by task ids, which differ per run. */
function shape(value: unknown, key?: string): Shape {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.map((v) => shape(v));
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]): [string, unknown] => [key === "interrupts" ? "<task id>" : k, v]);
    return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v, k)]));
  }
  return typeof value;
}

/** The rows of a table between `<!-- name:start -->` and `<!-- name:end -->`, first two cells. */
function tableRows(markdown: string, name: string): Array<[string, string]> {
  const table = markdown.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0] ?? "";
  return [...table.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)].map((m) => [m[1] ?? "", (m[2] ?? "").trim()]);
}

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("docs/PROTOCOL.md REST examples", () => {
  it("have the shape of the hub's responses", async () => {
    const hub = await testHub();
    const actual = new Map<string, unknown>();
    const get = async (path: string, status = 200): Promise<unknown> => {
      const res = await fetch(`${hub.url}${path}`);
      expect(res.status, path).toBe(status);
      return res.json();
    };

    actual.set("health", await get("/health"));
    actual.set("assistants", await get("/assistants"));
    const created = await post(`${hub.url}/threads`, { thread_id: "th_1", metadata: { team: "legal" } });
    expect(created.status).toBe(200);
    actual.set("thread-created", await created.json());

    const start = await post(`${hub.url}/threads/th_1/commands`, { id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: "clause 7" } } });
    expect(await start.json()).toMatchObject({ type: "success" });
    await expect.poll(async () => ((await get("/threads/th_1")) as { status: string }).status, WAIT).toBe("interrupted");
    actual.set("thread", await get("/threads/th_1"));
    actual.set("thread-state", await get("/threads/th_1/state"));
    actual.set("thread-history", await get("/threads/th_1/history?limit=2"));
    actual.set("error", await get("/threads/nope", 404));
    const tooLarge = await post(`${hub.url}/threads`, { metadata: { blob: "x".repeat(DEFAULT_LIMITS.maxFrameBytes) } });
    expect(tooLarge.status).toBe(413);
    actual.set("payload-too-large", await tooLarge.json());

    // Review items: the run's question is a pending item of the default queue.
    const queue = (await get("/queues/default/items?status=open")) as { items: Array<{ interrupt_id: string }> };
    actual.set("queue-items", queue);
    const [item] = queue.items;
    if (item === undefined) throw new Error("the interrupted run has no review item");
    const id = item.interrupt_id;
    const claim = await post(`${hub.url}/threads/th_1/commands`, { id: 2, method: "input.claim", params: { interrupt_id: id, ttl_ms: 60_000 } });
    expect(await claim.json()).toMatchObject({ type: "success", result: { interrupt_id: id } });
    const answer = async (status: number): Promise<unknown> => {
      const res = await post(`${hub.url}/reviews/${id}/answer`, { response: "approve" });
      expect(res.status, "POST /reviews/:id/answer").toBe(status);
      return res.json();
    };
    actual.set("review-answer", await answer(200));
    actual.set("review-already-answered", await answer(409));
    actual.set("review", await get(`/reviews/${id}`));
    await expect.poll(async () => ((await get("/threads/th_1")) as { status: string }).status, WAIT).toBe("idle");

    // Every documented example is checked, and every checked response is documented.
    expect([...examples.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [name, body] of actual) expect(shape(examples.get(name)), `rest-example ${name}`).toEqual(shape(body));
  });
});

describe("docs/operations.md", () => {
  it("the limits table matches DEFAULT_LIMITS", () => {
    const rows = Object.fromEntries(tableRows(operations, "limits-table").map(([name, value]) => [name, Number(value.replaceAll(",", ""))]));
    expect(rows).toEqual({ ...DEFAULT_LIMITS });
  });

  it("the metrics table lists exactly the metrics GET /metrics serves, with their types", async () => {
    const hub = await testHub();
    const text = await (await fetch(`${hub.url}/metrics`)).text();
    const served = Object.fromEntries([...text.matchAll(/^# TYPE (\w+) (\w+)$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]));
    const documented = Object.fromEntries(tableRows(operations, "metrics-table").map(([name, type]) => [name.replace(/\{.*\}$/, ""), type]));
    expect(documented).toEqual(served);
    // The runs gauge has one series per run status, all documented.
    const statuses = [...text.matchAll(/^switchboard_runs\{status="(\w+)"\}/gm)].map((m) => m[1]);
    const row = operations.split("\n").find((line) => line.startsWith("| `switchboard_runs{status}`")) ?? "";
    for (const status of statuses) expect(row).toContain(`\`${status}\``);
  });
});
