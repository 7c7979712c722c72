/**
 * Thread and run objects as the LangGraph API returns them (`Thread` and
 * `Run` of `@langchain/langgraph-sdk`), built from the hub's records and the
 * thread's latest state. The hub's run statuses map onto LangGraph's:
 * completed → success, failed → error, cancelled → interrupted (what the
 * LangGraph server reports for a run cancelled with `action: "interrupt"`),
 * abandoned (the hub stopped under it) → error.
 */
import type { StateSnapshot } from "../../../engine/index.ts";
import { assertNever } from "../../protocol/index.ts";
import type { RunRecord, RunStatus, ThreadRecord } from "../../runs/index.ts";
import { interruptsByTask, type InterruptJson } from "./state-json.ts";

export type LgRunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";

export function lgRunStatus(status: RunStatus): LgRunStatus {
  switch (status) {
    case "pending":
    case "running":
    case "interrupted":
      return status;
    case "completed":
      return "success";
    case "failed":
    case "abandoned":
      return "error";
    case "cancelled":
      return "interrupted";
    default:
      return assertNever(status, "run status");
  }
}

export interface ThreadJson {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: Record<string, unknown>;
  status: ThreadRecord["status"];
  config: Record<string, unknown>;
  values: Record<string, unknown>;
  interrupts: Record<string, InterruptJson[]>;
  error: string | null;
  /** Extension: the assistant the thread last ran (null before its first run). */
  assistant_id: string | null;
}

export function threadJson(thread: ThreadRecord, state: StateSnapshot | undefined, error: string | null = null): ThreadJson {
  return {
    thread_id: thread.threadId,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    state_updated_at: state?.createdAt ?? thread.updatedAt,
    metadata: thread.metadata,
    status: thread.status,
    config: {},
    values: state?.values ?? {},
    interrupts: state ? interruptsByTask(state) : {},
    error: thread.status === "error" ? error : null,
    assistant_id: thread.assistantId,
  };
}

export interface RunJson {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: LgRunStatus;
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
  multitask_strategy: RunRecord["multitaskStrategy"];
  cancel_reason: string | null;
  /** Extension: the hub's own status (it tells cancelled from interrupted) and the failure, if any. */
  switchboard_status: RunStatus;
  error: string | null;
  /** Extension: the hub node that runs the run, or ran it last (null while queued). */
  node_id: string | null;
}

export function runJson(run: RunRecord): RunJson {
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    assistant_id: run.assistantId,
    created_at: run.createdAt,
    updated_at: run.endedAt ?? run.startedAt ?? run.createdAt,
    status: lgRunStatus(run.status),
    metadata: { assistant_id: run.assistantId, graph_id: run.assistantId, started_by: run.startedBy },
    kwargs: { input: run.input },
    multitask_strategy: run.multitaskStrategy,
    cancel_reason: run.status === "cancelled" ? (run.error ?? "cancelled") : null,
    switchboard_status: run.status,
    error: run.error,
    node_id: run.nodeId,
  };
}
