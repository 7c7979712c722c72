/**
 * Stateless runs (`client.runs.stream(null, …)`, `runs.wait(null, …)`,
 * `runs.create(null, …)`): each runs on a thread of its own, made for it,
 * that is deleted with everything of it once the run has ended and its
 * response is done — unless `on_completion: "keep"`. The run is an ordinary
 * run meanwhile (same run manager, log and review routing). A stateless run
 * has nothing to resume, so `command.resume` is refused.
 */
import type { Hono } from "hono";
import { SwitchboardError } from "../../protocol/index.ts";
import type { RunRecord, ThreadRecord } from "../../runs/index.ts";
import type { LgDeps } from "./access.ts";
import { admitRun } from "./admission.ts";
import { handled, readJson, requirePermission, type LgContext, type LgEnv } from "./http.ts";
import { checkMetadataBytes } from "../body.ts";
import { runJson } from "./records-json.ts";
import { followRun, runOutput } from "./run-output.ts";
import { streamSettingOf } from "./runs.ts";
import { RunBody, parseBody } from "./schemas.ts";
import { deleteThread } from "./thread-data.ts";

export function addStatelessRunRoutes(app: Hono<LgEnv>, deps: LgDeps): void {
  const { services } = deps;

  const cleanup = (thread: ThreadRecord, keep: boolean): (() => Promise<void>) => async () => {
    if (keep) return;
    try {
      await deleteThread(services, thread);
    } catch (error) {
      services.logger.warn(`deleting the thread of a stateless run (${thread.threadId}): ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const start = async (c: LgContext): Promise<{ thread: ThreadRecord; body: RunBody; run: RunRecord; done: () => Promise<void> }> => {
    const principal = c.get("principal");
    requirePermission(principal, "operate");
    const body = parseBody(RunBody, await readJson(c, services.limits));
    if (body.metadata) checkMetadataBytes(body.metadata, services.limits);
    if (body.command && "resume" in body.command) throw new SwitchboardError("invalid_argument", "a stateless run has no interrupt to resume: resume on the thread (runs.create(threadId, …))");
    if (body.checkpoint_id || body.checkpoint) throw new SwitchboardError("invalid_argument", "a stateless run has no checkpoints to start from");
    const setting = streamSettingOf(body);
    const thread = await services.runs.ensureThread(crypto.randomUUID(), principal, true);
    const done = cleanup(thread, body.on_completion === "keep");
    try {
      const admission = await admitRun(services, thread, { ...body, multitask_strategy: "reject" }, principal);
      if (admission.kind !== "run") throw new SwitchboardError("invalid_argument", "a stateless run has no interrupt to resume");
      deps.streamSettings.remember(admission.run.runId, setting);
      return { thread, body, run: admission.run, done };
    } catch (error) {
      await done();
      throw error;
    }
  };
  const location = (run: RunRecord): string => `/runs/${encodeURIComponent(run.runId)}`;

  app.post("/runs", handled(async (c) => {
    const { run, done } = await start(c);
    void services.runs.waitForEnd(run.runId).then(done, done);
    return c.json(runJson(run), 200, { "content-location": location(run) });
  }));

  app.post("/runs/stream", handled(async (c) => {
    const { thread, body, run, done } = await start(c);
    const ended = async (): Promise<void> => {
      await services.runs.waitForEnd(run.runId).catch(() => undefined);
      await done();
    };
    return followRun(deps, c, thread, run, {
      setting: streamSettingOf(body),
      metadata: true,
      lastEventId: undefined,
      cancelOnDisconnect: body.on_disconnect === "cancel",
      location: location(run),
      onEnd: () => void ended(),
    });
  }));

  app.post("/runs/wait", handled(async (c) => {
    const { thread, body, run, done } = await start(c);
    const signal = c.req.raw.signal;
    try {
      const finished = await services.runs.waitForEnd(run.runId, signal);
      if (signal.aborted && body.on_disconnect === "cancel") await services.runs.cancel(thread, run.runId).catch(() => undefined);
      const output = await runOutput(deps, thread, finished);
      return c.json(output, 200, { "content-location": location(run) });
    } finally {
      // A client that left early: the run goes on, and its thread goes when it ends.
      if (signal.aborted) void services.runs.waitForEnd(run.runId).then(done, done);
      else await done();
    }
  }));
}
