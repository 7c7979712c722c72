/**
 * docs/langgraph-api.md is true: every `json lg-example` block has the shape
 * (keys and value types, recursively) of what a real hub answers to the SDK
 * call written above it, and the routes table lists exactly routes the hub
 * serves — each is requested and none hits the "no route" handler — and
 * every route the LangGraph SDK's threads/assistants/runs/store clients call
 * that the hub serves is in the table.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { testHub } from "../support/hub.ts";

const doc = readFileSync(fileURLToPath(new URL("../../docs/langgraph-api.md", import.meta.url)), "utf8");
const examples = new Map<string, unknown>([...doc.matchAll(/^```json lg-example ([\w-]+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1] ?? "", JSON.parse(m[2] ?? "null")]));

type Shape = string | Shape[] | { [key: string]: Shape };

/** Keys and value types; arrays element by element; a thread's `interrupts` is keyed by task ids, which differ per run. */
function shape(value: unknown, key?: string): Shape {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.map((v) => shape(v));
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]): [string, unknown] => [key === "interrupts" ? "<task id>" : k, v]);
    return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v, k)]));
  }
  return typeof value;
}

const routes = (doc.split("<!-- routes:start -->")[1]?.split("<!-- routes:end -->")[0] ?? "")
  .split("\n")
  .flatMap((line) => {
    const m = /^\| `(GET|POST|PUT|PATCH|DELETE) ([^`]+)` \|/.exec(line);
    return m ? [{ method: m[1] ?? "", path: m[2] ?? "" }] : [];
  });

describe("docs/langgraph-api.md", () => {
  it("the examples have the shape of the hub's answers to the SDK calls above them", async () => {
    const hub = await testHub();
    const client = new Client({ apiUrl: hub.url, callerOptions: { maxRetries: 0 } });
    const actual = new Map<string, unknown>();
    actual.set("info", await (await fetch(`${hub.url}/info`)).json());
    actual.set("assistant", await client.assistants.get("review"));
    actual.set("assistant-graph", await client.assistants.getGraph("review"));
    actual.set("assistant-schemas", await client.assistants.getSchemas("review"));
    actual.set("thread-create", await client.threads.create({ threadId: "th_1", metadata: { team: "legal" } }));
    const run = await client.runs.create("th_1", "review", { input: { topic: "clause 7" } });
    actual.set("run", run);
    await client.runs.join("th_1", run.run_id);
    actual.set("thread-interrupted", await client.threads.get("th_1"));
    actual.set("runs-wait-resumed", await client.runs.wait("th_1", "review", { command: { resume: "approve" } }));
    actual.set("update-state", await client.threads.updateState("th_1", { values: { topic: "clause 8" }, asNode: "finalize" }));
    const exists = await client.threads.create({ threadId: "th_1", ifExists: "raise" }).catch((e: { status?: number; text?: string }) => e);
    expect((exists as { status?: number }).status).toBe(409);
    actual.set("error-exists", JSON.parse((exists as { text: string }).text));
    await client.store.putItem(["users", "ann"], "prefs", { theme: "dark" });
    actual.set("store-item", await (await fetch(`${hub.url}/store/items?namespace=users.ann&key=prefs`)).json());
    actual.set("store-search", await (await fetch(`${hub.url}/store/items/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ namespace_prefix: ["users"] }) })).json());
    actual.set("store-namespaces", await client.store.listNamespaces());

    expect([...examples.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [name, body] of actual) expect(shape(examples.get(name)), `lg-example ${name}`).toEqual(shape(body));
  });

  it("every route in the table is served", async () => {
    const hub = await testHub();
    expect(routes.length).toBeGreaterThan(35);
    for (const { method, path } of routes) {
      const url = hub.url + path.replace(/:[a-z_]+/g, "x");
      const res = await fetch(url, { method, ...(method === "GET" ? {} : { headers: { "content-type": "application/json" }, body: "{}" }) });
      const body = await res.text();
      expect(body, `${method} ${path}`).not.toMatch(/"message":"no route /);
    }
  });

  it("lists every LangGraph SDK route this hub serves", () => {
    const listed = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const route of [
      "POST /threads", "GET /threads/:id", "PATCH /threads/:id", "DELETE /threads/:id", "POST /threads/search", "POST /threads/count", "POST /threads/:id/copy",
      "GET /threads/:id/state", "POST /threads/:id/state", "POST /threads/:id/history", "POST /assistants/search", "GET /assistants/:id", "GET /assistants/:id/graph",
      "GET /assistants/:id/schemas", "GET /assistants/:id/subgraphs", "POST /runs/stream", "POST /runs/wait", "PUT /store/items", "GET /store/items",
      "DELETE /store/items", "POST /store/items/search", "POST /store/namespaces", "GET /ok", "GET /info",
    ]) expect(listed.has(route), route).toBe(true);
  });
});
