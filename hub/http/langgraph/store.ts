/**
 * The LangGraph store (`client.store.*`): put, get, delete and search items,
 * list namespaces — in the caller's tenant only, on the hub's storage
 * (memory, SQLite, Postgres). Reading needs the `read` role, writing
 * `operate`. Semantic search (`query`, `index`) and item TTLs are refused.
 */
import type { Hono } from "hono";
import { z } from "zod";
import { SwitchboardError } from "../../protocol/index.ts";
import { StoreArgumentError, type StoreItem } from "../../store/index.ts";
import type { LgDeps } from "./access.ts";
import { handled, readJson, requirePermission, type LgContext, type LgEnv } from "./http.ts";
import { parseBody } from "./schemas.ts";

const labels = z.array(z.string());
const PutBody = z.object({ namespace: labels, key: z.string(), value: z.record(z.string(), z.unknown()), index: z.unknown().optional(), ttl: z.unknown().optional() });
const DeleteBody = z.object({ namespace: labels, key: z.string() });
const SearchBody = z.object({
  namespace_prefix: labels.nullish(),
  filter: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().int().nullish(),
  offset: z.number().int().nullish(),
  query: z.string().nullish(),
  refresh_ttl: z.boolean().nullish(),
});
const NamespacesBody = z.object({
  prefix: labels.nullish(),
  suffix: labels.nullish(),
  max_depth: z.number().int().nullish(),
  limit: z.number().int().nullish(),
  offset: z.number().int().nullish(),
});

export function itemJson(item: StoreItem): Record<string, unknown> {
  return { namespace: item.namespace, key: item.key, value: item.value, created_at: item.createdAt, updated_at: item.updatedAt };
}

/** The store's argument errors are the client's: invalid_argument (400). */
async function checked<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof StoreArgumentError) throw new SwitchboardError("invalid_argument", error.message);
    throw error;
  }
}

export function addStoreRoutes(app: Hono<LgEnv>, deps: LgDeps): void {
  const { services } = deps;
  const tenantFor = (c: LgContext, action: "read" | "operate"): string => {
    const principal = c.get("principal");
    requirePermission(principal, action);
    return principal.tenant;
  };

  app.put("/store/items", handled(async (c) => {
    const tenant = tenantFor(c, "operate");
    const body = parseBody(PutBody, await readJson(c, services.limits));
    if (body.index !== undefined && body.index !== null && body.index !== false) throw new SwitchboardError("not_supported", "the store has no semantic index here: put without index (or index: false)");
    if (body.ttl !== undefined && body.ttl !== null) throw new SwitchboardError("not_supported", "item TTLs are not supported");
    await checked(() => services.items.put(tenant, body.namespace, body.key, body.value));
    return c.body(null, 204);
  }));

  app.get("/store/items", handled(async (c) => {
    const tenant = tenantFor(c, "read");
    const key = c.req.query("key");
    const namespace = c.req.query("namespace");
    if (key === undefined) throw new SwitchboardError("invalid_argument", "key is required");
    const item = await checked(() => services.items.get(tenant, namespace === undefined || namespace === "" ? [] : namespace.split("."), key));
    // LangGraph answers a missing item with null, which the SDK returns as is.
    return c.json(item ? itemJson(item) : null);
  }));

  app.delete("/store/items", handled(async (c) => {
    const tenant = tenantFor(c, "operate");
    const body = parseBody(DeleteBody, await readJson(c, services.limits));
    await checked(() => services.items.delete(tenant, body.namespace, body.key));
    return c.body(null, 204);
  }));

  app.post("/store/items/search", handled(async (c) => {
    const tenant = tenantFor(c, "read");
    const body = parseBody(SearchBody, await readJson(c, services.limits));
    if (body.query) throw new SwitchboardError("not_supported", "semantic search (query) is not supported: search by namespace prefix and filter");
    const items = await checked(() =>
      services.items.search(tenant, body.namespace_prefix ?? [], {
        ...(body.filter ? { filter: body.filter } : {}),
        ...(body.limit == null ? {} : { limit: body.limit }),
        ...(body.offset == null ? {} : { offset: body.offset }),
      }),
    );
    return c.json({ items: items.map((i) => ({ ...itemJson(i), score: null })) });
  }));

  app.post("/store/namespaces", handled(async (c) => {
    const tenant = tenantFor(c, "read");
    const body = parseBody(NamespacesBody, await readJson(c, services.limits));
    const namespaces = await checked(() =>
      services.items.listNamespaces(tenant, {
        ...(body.prefix ? { prefix: body.prefix } : {}),
        ...(body.suffix ? { suffix: body.suffix } : {}),
        ...(body.max_depth == null ? {} : { maxDepth: body.max_depth }),
        ...(body.limit == null ? {} : { limit: body.limit }),
        ...(body.offset == null ? {} : { offset: body.offset }),
      }),
    );
    return c.json({ namespaces });
  }));
}
