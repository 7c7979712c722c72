/**
 * Runs of a thread, as `client.runs.*` of `@langchain/langgraph-sdk` calls
 * them: create (background), stream, wait, list, get, delete, cancel, join
 * and joinStream. Every run goes through the run manager (admission.ts), is
 * published to the thread log, and is followed from there.
 */
import type { Hono } from "hono";
import { SwitchboardError } from "../../protocol/index.ts";
import { isFinalRunStatus, type RunRecord, type ThreadRecord } from "../../runs/index.ts";
import { threadFor, type LgDeps, type StreamSetting } from "./access.ts";
import { admitRun, type Admission } from "./admission.ts";
import { handled, queryFlag, readJson, type LgContext, type LgEnv } from "./http.ts";
import { lgRunStatus, runJson, type LgRunStatus } from "./records-json.ts";
import { followRun, runOutput } from "./run-output.ts";
import { RunBody, parseBody } from "./schemas.ts";
import { isLgStreamMode, type LgStreamMode } from "./stream-format.ts";
import { waitingResponse } from "./waiting.ts";
import { checkMetadataBytes } from "../body.ts";

const LG_STATUSES: readonly LgRunStatus[] = ["pending", "running", "error", "success", "timeout", "interrupted"];
const MAX_RUNS_PAGE = 1000;

/** The stream modes of a request; LangGraph's default is values alone. `tools`/`lifecycle` have no LangGraph payload here. */
export function streamSettingOf(body: RunBody): StreamSetting {
  const requested = body.stream_mode === undefined || body.stream_mode === null ? ["values"] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
  const modes: LgStreamMode[] = [];
  for (const mode of requested) {
    if (!isLgStreamMode(mode)) throw new SwitchboardError("not_supported", `stream mode "${mode}" is not supported by this hub's LangGraph API (the thread stream protocol carries ${mode})`);
    if (!modes.includes(mode)) modes.push(mode);
  }
  return { modes, subgraphs: body.stream_subgraphs ?? false };
}

export function addRunRoutes(app: Hono<LgEnv>, deps: LgDeps): void {
  const { services } = deps;

  const admitted = async (c: LgContext): Promise<{ thread: ThreadRecord; body: RunBody; admission: Admission; setting: StreamSetting }> => {
    const body = parseBody(RunBody, await readJson(c, services.limits));
    if (body.metadata) checkMetadataBytes(body.metadata, services.limits);
    const setting = streamSettingOf(body);
    const thread = await threadFor(services, c.get("principal"), c.req.param("thread_id") ?? "", "read", body.if_not_exists === "create");
    const admission = await admitRun(services, thread, body, c.get("principal"));
    if (admission.kind === "run") deps.streamSettings.remember(admission.run.runId, setting);
    return { thread, body, admission, setting };
  };
  const location = (run: RunRecord): string => `/threads/${encodeURIComponent(run.threadId)}/runs/${encodeURIComponent(run.runId)}`;

  app.post("/threads/:thread_id/runs", handled(async (c) => {
    const { thread, admission } = await admitted(c);
    if (admission.kind === "waiting") return waitingResponse(deps, thread, admission, "create");
    return c.json(runJson(admission.run), 200, { "content-location": location(admission.run) });
  }));

  app.post("/threads/:thread_id/runs/stream", handled(async (c) => {
    const { thread, body, admission, setting } = await admitted(c);
    if (admission.kind === "waiting") return waitingResponse(deps, thread, admission, "stream");
    const run = admission.run;
    return followRun(deps, c, thread, run, { setting, metadata: true, lastEventId: undefined, cancelOnDisconnect: body.on_disconnect === "cancel", location: location(run) });
  }));

  app.post("/threads/:thread_id/runs/wait", handled(async (c) => {
    const { thread, body, admission } = await admitted(c);
    if (admission.kind === "waiting") return waitingResponse(deps, thread, admission, "wait");
    const signal = c.req.raw.signal;
    const ended = await services.runs.waitForEnd(admission.run.runId, signal);
    if (signal.aborted && body.on_disconnect === "cancel") await services.runs.cancel(thread, admission.run.runId).catch(() => undefined);
    return c.json(await runOutput(deps, thread, ended), 200, { "content-location": location(admission.run) });
  }));

  app.get("/threads/:thread_id/runs", handled(async (c) => {
    const thread = await threadFor(services, c.get("principal"), c.req.param("thread_id") ?? "", "read");
    const limit = pageNumber(c.req.query("limit"), 10, "limit");
    const offset = pageNumber(c.req.query("offset"), 0, "offset");
    if (limit > MAX_RUNS_PAGE) throw new SwitchboardError("invalid_argument", `limit is at most ${MAX_RUNS_PAGE}`);
    const status = c.req.query("status");
    if (status !== undefined && !LG_STATUSES.some((s) => s === status)) throw new SwitchboardError("invalid_argument", `status must be one of ${LG_STATUSES.join(", ")}`);
    // Newest first; a LangGraph status may be several of the hub's, so the page is cut after mapping.
    const runs = (await services.store.listRuns(thread.threadId, { limit: status === undefined ? offset + limit : MAX_RUNS_PAGE + offset }))
      .filter((r) => status === undefined || lgRunStatus(r.status) === status)
      .slice(offset, offset + limit);
    return c.json(runs.map(runJson));
  }));

  const runOf = async (c: LgContext, action: "read" | "operate"): Promise<{ thread: ThreadRecord; run: RunRecord }> => {
    const thread = await threadFor(services, c.get("principal"), c.req.param("thread_id") ?? "", action);
    const runId = c.req.param("run_id") ?? "";
    const run = await services.store.getRun(runId);
    if (!run || run.threadId !== thread.threadId) throw new SwitchboardError("no_such_run", `thread ${thread.threadId} has no run ${runId}`);
    return { thread, run };
  };

  app.get("/threads/:thread_id/runs/:run_id", handled(async (c) => c.json(runJson((await runOf(c, "read")).run))));

  app.delete("/threads/:thread_id/runs/:run_id", handled(async (c) => {
    const { run } = await runOf(c, "operate");
    if (!isFinalRunStatus(run.status)) throw new SwitchboardError("thread_busy", `run ${run.runId} is ${run.status}: cancel it first`, { run_id: run.runId });
    await services.store.deleteRun(run.runId);
    return c.body(null, 204);
  }));

  app.post("/threads/:thread_id/runs/:run_id/cancel", handled(async (c) => {
    const { thread, run } = await runOf(c, "operate");
    const action = c.req.query("action") ?? "interrupt";
    if (action === "rollback") throw new SwitchboardError("not_supported", 'cancel with action "rollback" is not supported; start the next run with multitask_strategy "rollback" instead');
    if (action !== "interrupt") throw new SwitchboardError("invalid_argument", 'action must be "interrupt" or "rollback"');
    if (isFinalRunStatus(run.status)) throw new SwitchboardError("no_such_run", `run ${run.runId} already ended (${run.status})`);
    const cancelled = services.runs.cancel(thread, run.runId);
    if (queryFlag(c.req.query("wait"))) await cancelled;
    else cancelled.catch((error: unknown) => services.logger.warn(`cancelling run ${run.runId}: ${String(error)}`));
    return c.body(null, 204);
  }));

  app.get("/threads/:thread_id/runs/:run_id/join", handled(async (c) => {
    const { thread, run } = await runOf(c, "read");
    const signal = c.req.raw.signal;
    const ended = await services.runs.waitForEnd(run.runId, signal);
    if (signal.aborted && queryFlag(c.req.query("cancel_on_disconnect"))) await services.runs.cancel(thread, run.runId).catch(() => undefined);
    return c.json(await runOutput(deps, thread, ended));
  }));

  app.get("/threads/:thread_id/runs/:run_id/stream", handled(async (c) => {
    const { thread, run } = await runOf(c, "read");
    return followRun(deps, c, thread, run, {
      setting: joinSetting(deps, run.runId, c.req.queries("stream_mode")),
      metadata: true,
      lastEventId: c.req.header("last-event-id"),
      cancelOnDisconnect: queryFlag(c.req.query("cancel_on_disconnect")),
      location: location(run),
    });
  }));
}

/** A join streams the modes it names, else those the run was started with (values when unknown). */
export function joinSetting(deps: LgDeps, runId: string, requested: string[] | undefined): StreamSetting {
  const known = deps.streamSettings.get(runId);
  if (requested === undefined || requested.length === 0) return known ?? { modes: ["values"], subgraphs: false };
  return { modes: checkedModes(requested), subgraphs: known?.subgraphs ?? false };
}

function checkedModes(requested: string[]): LgStreamMode[] {
  const out: LgStreamMode[] = [];
  for (const mode of requested) {
    if (!isLgStreamMode(mode)) throw new SwitchboardError("invalid_argument", `unknown stream mode "${mode}"`);
    if (!out.includes(mode)) out.push(mode);
  }
  return out;
}

function pageNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new SwitchboardError("invalid_argument", `${name} must be a non-negative integer`);
  return n;
}
