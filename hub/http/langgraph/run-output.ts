/**
 * What a LangGraph client gets back from a run it waited for (`runs.wait`,
 * `runs.join`) or follows (`runs.stream`, `runs.joinStream`): the thread's
 * values (with `__interrupt__` when it paused, `__error__` when it failed),
 * and the SSE response that follows a run in the thread log.
 */
import { isFinalRunStatus, type RunRecord, type ThreadRecord } from "../../runs/index.ts";
import type { LgContext, LgDeps, StreamSetting } from "./access.ts";
import { assistantOf, latestState } from "./access.ts";
import { SSE_HEADERS } from "../sse-frame.ts";
import { openRunStream, positionOf } from "./run-stream.ts";
import { checkpointEventJson } from "./state-json.ts";
import { RunStreamTranslator } from "./stream-format.ts";

/** The thread's values after a run, as `runs.wait` returns them. */
export async function runOutput(deps: LgDeps, thread: ThreadRecord, run: RunRecord | undefined): Promise<Record<string, unknown>> {
  if (run && (run.status === "failed" || run.status === "abandoned" || run.status === "cancelled")) {
    const error = run.status === "cancelled" ? "CancelledError" : "RunError";
    return { __error__: { error, message: run.error ?? `run ${run.status}` } };
  }
  const state = await latestState(deps.services, thread, undefined, run?.assistantId);
  if (!state) return {};
  return state.interrupts.length > 0 ? { ...state.values, __interrupt__: state.interrupts.map((i) => ({ id: i.id, value: i.value })) } : state.values;
}

export interface FollowOptions {
  setting: StreamSetting;
  /** Send the `metadata` event first. */
  metadata: boolean;
  /** `Last-Event-ID` of a reconnecting client. */
  lastEventId: string | undefined;
  /** Cancel the run when the client goes away before it ends. */
  cancelOnDisconnect: boolean;
  /** `Content-Location` of the run (`/threads/:id/runs/:run_id`, or `/runs/:run_id` when stateless). */
  location: string;
  /** Called once when the stream ends, whatever the reason (a stateless run's thread is deleted after). */
  onEnd?: () => void;
}

/** An SSE response that streams the run from the thread log until it ends. */
export async function followRun(deps: LgDeps, c: LgContext, thread: ThreadRecord, run: RunRecord, o: FollowOptions): Promise<Response> {
  const { services, hooks } = deps;
  const log = await services.runs.openLog(thread);
  const graph = assistantOf(services, thread)?.graph ?? services.assistants.get(run.assistantId)?.graph;
  const translator = new RunStreamTranslator({
    modes: new Set(o.setting.modes),
    subgraphs: o.setting.subgraphs,
    threadId: thread.threadId,
    runId: run.runId,
    graphId: run.assistantId,
    async readCheckpoint(checkpointId) {
      const state = await graph?.getState(thread.threadId, { checkpointId });
      return state?.config ? checkpointEventJson(thread.threadId, state) : undefined;
    },
  });
  const current = await services.store.getRun(run.runId);
  const outgoing = c.env?.outgoing;
  const after = positionOf(o.lastEventId);
  const stream = openRunStream({
    log,
    runId: run.runId,
    translator,
    after,
    metadata: o.metadata && after === undefined ? { run_id: run.runId, attempt: 1 } : undefined,
    ended: current !== undefined && isFinalRunStatus(current.status),
    services,
    hooks,
    signal: c.req.raw.signal,
    ...(o.onEnd ? { onEnd: o.onEnd } : {}),
    ...(o.cancelOnDisconnect
      ? { onDisconnect: () => void services.runs.cancel(thread, run.runId).catch(() => undefined) }
      : {}),
    ...(outgoing ? { terminate: () => outgoing.destroy() } : {}),
  });
  return new Response(stream.body, { headers: { ...SSE_HEADERS, "content-location": o.location } });
}
