/**
 * Assistants as `client.assistants.*` reads them: search, count, get, the
 * compiled graph's nodes and edges, JSON Schemas from its channels, and its
 * subgraphs. The hub's assistants are configured, not created over the API:
 * each is one version, its id is also its graph id.
 */
import type { Hono } from "hono";
import { SwitchboardError } from "../../protocol/index.ts";
import type { Assistant, AssistantGraph } from "../../runs/assistants.ts";
import { requireAssistant, type LgDeps } from "./access.ts";
import { handled, readJson, requirePermission, type LgEnv } from "./http.ts";
import { matchesJson } from "./match.ts";
import { AssistantCountBody, AssistantSearchBody, parseBody } from "./schemas.ts";

export interface AssistantJson {
  assistant_id: string;
  graph_id: string;
  config: { configurable: Record<string, unknown> };
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  version: number;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export function assistantJson(assistant: Assistant, since: string): AssistantJson {
  return {
    assistant_id: assistant.id,
    graph_id: assistant.id,
    config: { configurable: {} },
    context: {},
    metadata: { created_by: "system" },
    version: 1,
    name: assistant.id,
    description: assistant.description,
    created_at: since,
    updated_at: since,
  };
}

/** The `GraphSchema` of one graph: state, input and output from its channels. */
export function graphSchemaJson(graphId: string, graph: AssistantGraph): Record<string, unknown> {
  const state = graph.stateSchema?.() ?? { type: "object", additionalProperties: true };
  return {
    graph_id: graphId,
    input_schema: { ...state, title: `${graphId}_input` },
    output_schema: { ...state, title: `${graphId}_output` },
    state_schema: { ...state, title: `${graphId}_state` },
    config_schema: { title: `${graphId}_config`, type: "object", properties: {} },
    context_schema: null,
  };
}

const SORT_KEYS = { assistant_id: "assistant_id", graph_id: "graph_id", name: "name", created_at: "created_at", updated_at: "updated_at" } as const;

export function addAssistantRoutes(app: Hono<LgEnv>, deps: LgDeps): void {
  const { services } = deps;
  const since = new Date().toISOString();
  const matching = (body: { graph_id?: string | null | undefined; name?: string | null | undefined; metadata?: Record<string, unknown> | null | undefined }): AssistantJson[] =>
    services.assistants
      .list()
      .map((a) => assistantJson(a, since))
      .filter((a) => (body.graph_id == null || a.graph_id === body.graph_id) && (body.name == null || a.name === body.name) && (body.metadata == null || matchesJson(a.metadata, body.metadata)));

  app.post("/assistants/search", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    const body = parseBody(AssistantSearchBody, await readJson(c, services.limits));
    const key = SORT_KEYS[body.sort_by ?? "created_at"];
    const order = body.sort_order === "asc" ? 1 : -1;
    const all = matching(body).sort((a, b) => (a[key] < b[key] ? -order : a[key] > b[key] ? order : a.assistant_id.localeCompare(b.assistant_id)));
    const offset = body.offset ?? 0;
    const limit = body.limit ?? 10;
    const page = all.slice(offset, offset + limit);
    const headers: Record<string, string> = offset + limit < all.length ? { "x-pagination-next": String(offset + limit) } : {};
    return c.json(page, 200, headers);
  }));

  app.post("/assistants/count", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    return c.json(matching(parseBody(AssistantCountBody, await readJson(c, services.limits))).length);
  }));

  app.post("/assistants", handled(async () => {
    throw new SwitchboardError("not_supported", "assistants are configured on the hub (the assistants factory), not created over the API; every configured assistant is listed by assistants.search");
  }));

  app.get("/assistants/:assistant_id", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    return c.json(assistantJson(requireAssistant(services, c.req.param("assistant_id") ?? ""), since));
  }));

  app.post("/assistants/:assistant_id/versions", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    return c.json([assistantJson(requireAssistant(services, c.req.param("assistant_id") ?? ""), since)]);
  }));

  app.get("/assistants/:assistant_id/graph", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    const assistant = requireAssistant(services, c.req.param("assistant_id") ?? "");
    const xray = xrayOf(c.req.query("xray"));
    const drawn = assistant.graph.getGraph?.({ xray }) ?? { nodes: [], edges: [] };
    return c.json(drawn);
  }));

  app.get("/assistants/:assistant_id/schemas", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    const assistant = requireAssistant(services, c.req.param("assistant_id") ?? "");
    return c.json(graphSchemaJson(assistant.id, assistant.graph));
  }));

  const subgraphs = (assistant: Assistant, recurse: boolean, namespace?: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [ns, graph] of assistant.graph.getSubgraphs?.({ recurse: recurse || namespace !== undefined }) ?? []) {
      if (namespace !== undefined && ns !== namespace) continue;
      out[ns] = graphSchemaJson(ns, graph);
    }
    return out;
  };
  app.get("/assistants/:assistant_id/subgraphs", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    const assistant = requireAssistant(services, c.req.param("assistant_id") ?? "");
    return c.json(subgraphs(assistant, flag(c.req.query("recurse"))));
  }));
  app.get("/assistants/:assistant_id/subgraphs/:namespace", handled(async (c) => {
    requirePermission(c.get("principal"), "read");
    const assistant = requireAssistant(services, c.req.param("assistant_id") ?? "");
    return c.json(subgraphs(assistant, flag(c.req.query("recurse")), c.req.param("namespace") ?? ""));
  }));
}

const flag = (value: string | undefined): boolean => value === "true" || value === "1";

/** `xray` as the SDK sends it: "true"/"false" or a depth. */
function xrayOf(value: string | undefined): boolean | number {
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (value === "true") return true;
  const depth = Number(value);
  if (!Number.isSafeInteger(depth) || depth < 0) throw new SwitchboardError("invalid_argument", "xray must be true, false or a non-negative depth");
  return depth;
}
