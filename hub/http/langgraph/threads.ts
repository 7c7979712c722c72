/**
 * Threads as `client.threads.*` of `@langchain/langgraph-sdk` calls them:
 * create (if_exists), get, patch, delete, search, count, copy, state (latest
 * or at a checkpoint), updateState (as_node) and history. Shapes are the
 * SDK's `Thread` and `ThreadState` (records-json.ts, state-json.ts).
 */
import type { Hono } from "hono";
import type { StateSnapshot } from "../../../engine/index.ts";
import { SwitchboardError } from "../../protocol/index.ts";
import { GRAPH_ID_KEY, type ThreadRecord } from "../../runs/index.ts";
import { assistantOf, latestState, threadFor, type LgDeps } from "./access.ts";
import { handled, readJson, requirePermission, type LgContext, type LgEnv } from "./http.ts";
import { checkIdBytes, checkMetadataBytes } from "../body.ts";
import { matchesJson } from "./match.ts";
import { threadJson, type ThreadJson } from "./records-json.ts";
import { HistoryBody, StateAtBody, StateUpdateBody, ThreadCountBody, ThreadCreateBody, ThreadPatchBody, ThreadSearchBody, parseBody } from "./schemas.ts";
import { checkpointJson, stateJson, type StateJson } from "./state-json.ts";
import { copyThread, deleteThread } from "./thread-data.ts";

/** The record field of each sort key but the state's time. */
const RECORD_FIELD = { thread_id: "threadId", status: "status", created_at: "createdAt", updated_at: "updatedAt" } as const;

/** Thread search and count read at most this many of the tenant's newest threads. */
export const THREAD_SCAN_MAX = 10_000;

/** The state of a thread that never ran: empty, at no checkpoint. */
function emptyState(threadId: string): StateJson {
  return { values: {}, next: [], tasks: [], checkpoint: checkpointJson(threadId, undefined), parent_checkpoint: null, metadata: {}, created_at: null, interrupts: [] };
}

export function addThreadRoutes(app: Hono<LgEnv>, deps: LgDeps): void {
  const { services } = deps;
  const { store, runs } = services;

  const stateOf = async (thread: ThreadRecord): Promise<StateSnapshot | undefined> => latestState(services, thread);
  const full = async (thread: ThreadRecord): Promise<ThreadJson> => threadJson(thread, await stateOf(thread), await lastError(thread));
  const lastError = async (thread: ThreadRecord): Promise<string | null> => {
    if (thread.status !== "error") return null;
    const [last] = await store.listRuns(thread.threadId, { limit: 1 });
    return last?.error ?? null;
  };
  const param = (c: LgContext): string => c.req.param("thread_id") ?? "";

  app.post("/threads", handled(async (c) => {
    const principal = c.get("principal");
    requirePermission(principal, "operate");
    const body = parseBody(ThreadCreateBody, await readJson(c, services.limits));
    if (body.supersteps && body.supersteps.length > 0) throw new SwitchboardError("not_supported", "threads.create with supersteps is not supported: create the thread, then threads.updateState");
    if (body.ttl !== undefined && body.ttl !== null) throw new SwitchboardError("not_supported", "a per-thread ttl is not supported; the hub's threadTtlMs config sweeps idle threads (docs/operations.md)");
    // Everything is checked before anything is stored: a refused body creates no thread.
    if (body.thread_id) checkIdBytes("thread_id", body.thread_id, services.limits);
    if (body.metadata) checkMetadataBytes(body.metadata, services.limits);
    const threadId = body.thread_id ?? crypto.randomUUID();
    const existing = await store.getThread(threadId, principal.tenant);
    if (existing) {
      if (body.if_exists === "raise") throw new SwitchboardError("already_exists", `thread ${threadId} already exists`, { thread_id: threadId });
      return c.json(await full(existing));
    }
    const thread = await runs.ensureThread(threadId, principal, true);
    const metadata = { ...body.metadata };
    if (metadata[GRAPH_ID_KEY] === null || metadata[GRAPH_ID_KEY] === undefined) delete metadata[GRAPH_ID_KEY];
    const graphId = metadata[GRAPH_ID_KEY];
    const assistant = typeof graphId === "string" ? services.assistants.get(graphId) : undefined;
    const patched = Object.keys(metadata).length > 0 || assistant
      ? await store.updateThread(threadId, { metadata: { ...thread.metadata, ...metadata }, ...(assistant && thread.assistantId === null ? { assistantId: assistant.id } : {}) })
      : thread;
    return c.json(await full(patched ?? thread));
  }));

  app.post("/threads/search", handled(async (c) => {
    const principal = c.get("principal");
    requirePermission(principal, "read");
    const body = parseBody(ThreadSearchBody, await readJson(c, services.limits));
    const key = body.sort_by ?? "created_at";
    const order = body.sort_order === "asc" ? 1 : -1;
    const offset = body.offset ?? 0;
    const limit = body.limit ?? 10;
    const byKey = <T>(get: (t: T) => string, id: (t: T) => string) => (a: T, b: T): number => {
      const x = get(a);
      const y = get(b);
      return x < y ? -order : x > y ? order : id(a).localeCompare(id(b));
    };
    const records = await matching(principal.tenant, body);
    let page: ThreadJson[];
    let total: number;
    if (body.values || key === "state_updated_at") {
      // Filtering by values or sorting by the state's time needs every matching thread's state.
      const all = await withValues(records, body.values);
      all.sort(byKey((t) => t[key], (t) => t.thread_id));
      total = all.length;
      page = all.slice(offset, offset + limit);
    } else {
      // Otherwise the page is cut from the records, and only its threads' states are read.
      const field = RECORD_FIELD[key];
      records.sort(byKey((t) => t[field], (t) => t.threadId));
      total = records.length;
      page = await Promise.all(records.slice(offset, offset + limit).map(full));
    }
    const headers: Record<string, string> = offset + limit < total ? { "x-pagination-next": String(offset + limit) } : {};
    return c.json(body.select ? page.map((t) => pick(t, body.select ?? [])) : page, 200, headers);
  }));

  app.post("/threads/count", handled(async (c) => {
    const principal = c.get("principal");
    requirePermission(principal, "read");
    const body = parseBody(ThreadCountBody, await readJson(c, services.limits));
    const records = await matching(principal.tenant, body);
    return c.json(body.values ? (await withValues(records, body.values)).length : records.length);
  }));

  /** The tenant's threads matching status, ids and metadata (the records alone say). */
  async function matching(
    tenant: string,
    body: { status?: ThreadRecord["status"] | null | undefined; ids?: string[] | null | undefined; metadata?: Record<string, unknown> | null | undefined },
  ): Promise<ThreadRecord[]> {
    const records = await store.listThreads(tenant, { limit: THREAD_SCAN_MAX, ...(body.status ? { status: body.status } : {}) });
    const ids = "ids" in body && body.ids ? new Set(body.ids) : undefined;
    return records.filter((r) => (!ids || ids.has(r.threadId)) && (!body.metadata || matchesJson(r.metadata, body.metadata)));
  }

  /** Each thread with its state, those whose values match. */
  async function withValues(records: readonly ThreadRecord[], values: Record<string, unknown> | null | undefined): Promise<ThreadJson[]> {
    const out: ThreadJson[] = [];
    for (const record of records) {
      const json = await full(record);
      if (!values || matchesJson(json.values, values)) out.push(json);
    }
    return out;
  }

  app.get("/threads/:thread_id", handled(async (c) => {
    const thread = await threadFor(services, c.get("principal"), param(c), "read");
    const [json, [run]] = await Promise.all([full(thread), store.listRuns(thread.threadId, { limit: 1 })]);
    // An extension: its current run (the latest), and the hub node that runs it or ran it last.
    const current = run === undefined ? null : { run_id: run.runId, status: run.status, node_id: run.nodeId };
    return c.json({ ...json, run: current });
  }));

  app.patch("/threads/:thread_id", handled(async (c) => {
    const thread = await threadFor(services, c.get("principal"), param(c), "operate");
    const body = parseBody(ThreadPatchBody, await readJson(c, services.limits));
    if (body.ttl !== undefined && body.ttl !== null) throw new SwitchboardError("not_supported", "a per-thread ttl is not supported; the hub's threadTtlMs config sweeps idle threads (docs/operations.md)");
    // LangGraph merges the new metadata into the old.
    if (body.metadata) checkMetadataBytes({ ...thread.metadata, ...body.metadata }, services.limits);
    const updated = body.metadata ? await store.updateThread(thread.threadId, { metadata: { ...thread.metadata, ...body.metadata } }) : thread;
    return c.json(await full(updated ?? thread));
  }));

  app.delete("/threads/:thread_id", handled(async (c) => {
    const thread = await threadFor(services, c.get("principal"), param(c), "operate");
    await deleteThread(services, thread);
    return c.body(null, 204);
  }));

  app.post("/threads/:thread_id/copy", handled(async (c) => {
    const principal = c.get("principal");
    const thread = await threadFor(services, principal, param(c), "operate");
    const copy = await copyThread(services, thread, principal);
    return c.json(await full(copy));
  }));

  const stateAt = async (c: LgContext, checkpointId: string | undefined): Promise<StateJson> => {
    const thread = await threadFor(services, c.get("principal"), param(c), "read");
    const state = await latestState(services, thread, checkpointId);
    if (!state) {
      if (checkpointId !== undefined) throw new SwitchboardError("no_such_checkpoint", `thread ${thread.threadId} has no checkpoint ${checkpointId}`);
      return emptyState(thread.threadId);
    }
    return stateJson(thread.threadId, state);
  };

  app.get("/threads/:thread_id/state", handled(async (c) => c.json(await stateAt(c, undefined))));
  app.get("/threads/:thread_id/state/:checkpoint_id", handled(async (c) => c.json(await stateAt(c, c.req.param("checkpoint_id")))));
  app.post("/threads/:thread_id/state/checkpoint", handled(async (c) => {
    const body = parseBody(StateAtBody, await readJson(c, services.limits));
    return c.json(await stateAt(c, body.checkpoint.checkpoint_id ?? undefined));
  }));

  app.post("/threads/:thread_id/state", handled(async (c) => {
    const principal = c.get("principal");
    const thread = await threadFor(services, principal, param(c), "operate");
    const body = parseBody(StateUpdateBody, await readJson(c, services.limits));
    const graphId = thread.metadata[GRAPH_ID_KEY];
    const assistant = assistantOf(services, thread) ?? (typeof graphId === "string" ? services.assistants.get(graphId) : undefined);
    if (!assistant) throw new SwitchboardError("invalid_argument", `thread ${thread.threadId} has no graph yet: run it first, or create it with metadata.graph_id`);
    const update = assistant.graph.updateState;
    if (!update) throw new SwitchboardError("not_supported", `assistant "${assistant.id}" cannot update state`);
    if (runs.isBusy(thread.threadId)) throw new SwitchboardError("thread_busy", `thread ${thread.threadId} has an active run`);
    const values = body.values === undefined || body.values === null ? null : recordOf(body.values);
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    const config = await update.call(assistant.graph, thread.threadId, values, {
      ...(body.as_node ? { asNode: body.as_node } : {}),
      ...(checkpointId ? { checkpointId } : {}),
    });
    // The thread's status follows its new head: waiting on interrupts, or idle.
    const after = await assistant.graph.getState(thread.threadId);
    // Questions the update went past are void: their review items are cancelled (announced as input.cancelled).
    if (after.interrupts.length === 0) await services.reviews.service.cancelForThread(thread.threadId, "state_updated");
    // Questions still waiting were asked of another state: a new revision each, so answers bound to the old payload_digest are refused.
    else await services.reviews.reviseThread(thread.threadId, "state_updated");
    await store.updateThread(thread.threadId, {
      status: after.interrupts.length > 0 ? "interrupted" : "idle",
      ...(thread.assistantId === null ? { assistantId: assistant.id } : {}),
      metadata: { ...thread.metadata, [GRAPH_ID_KEY]: assistant.id },
    });
    const checkpoint = { thread_id: thread.threadId, checkpoint_ns: config.checkpointNs, checkpoint_id: config.checkpointId, checkpoint_map: null };
    return c.json({ checkpoint, configurable: { thread_id: thread.threadId, checkpoint_ns: config.checkpointNs, checkpoint_id: config.checkpointId } });
  }));

  const history = async (c: LgContext, body: HistoryBody): Promise<StateJson[]> => {
    const thread = await threadFor(services, c.get("principal"), param(c), "read");
    const assistant = assistantOf(services, thread);
    if (!assistant) return [];
    const before = beforeOf(body.before);
    const out: StateJson[] = [];
    const options = { limit: body.limit ?? 10, ...(before ? { before } : {}), ...(body.metadata ? { filter: body.metadata } : {}) };
    for await (const s of assistant.graph.getStateHistory(thread.threadId, options)) out.push(stateJson(thread.threadId, s));
    return out;
  };
  app.post("/threads/:thread_id/history", handled(async (c) => c.json(await history(c, parseBody(HistoryBody, await readJson(c, services.limits))))));
  // Also as GET with query parameters (limit, before), for curl and older Switchboard clients.
  app.get("/threads/:thread_id/history", handled(async (c) => {
    const limit = c.req.query("limit");
    const before = c.req.query("before");
    return c.json(await history(c, parseBody(HistoryBody, { ...(limit === undefined ? {} : { limit: Number(limit) }), ...(before === undefined ? {} : { before }) })));
  }));
}

type HistoryBody = ReturnType<typeof HistoryBody.parse>;

/** `before` as a checkpoint id, a checkpoint, or a config (`{ configurable: { checkpoint_id } }`). */
function beforeOf(before: HistoryBody["before"]): string | undefined {
  if (before === undefined || before === null) return undefined;
  if (typeof before === "string") return before;
  if ("configurable" in before) {
    const id = before.configurable?.["checkpoint_id"];
    return typeof id === "string" && id !== "" ? id : undefined;
  }
  return before.checkpoint_id ?? undefined;
}

function recordOf(values: unknown): Record<string, unknown> {
  if (typeof values !== "object" || values === null) throw new SwitchboardError("invalid_argument", "values must be an object of state updates");
  if (Array.isArray(values)) throw new SwitchboardError("not_supported", "values as a list of updates is not supported: send one object (or call updateState once per update)");
  return { ...(values as Record<string, unknown>) };
}

function pick(thread: ThreadJson, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(thread, f)) out[f] = (thread as unknown as Record<string, unknown>)[f];
  return out;
}
