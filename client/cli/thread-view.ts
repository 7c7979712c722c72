/**
 * Renders one thread's events for `run` and `watch`: node progress, tokens
 * as they stream, tool calls, interrupts opening, claimed and answered (by
 * whom), and the root lifecycle. Pure presentation over protocol events; the
 * caller decides which events to show (run filters to its own runs).
 */
import type { ProtocolEvent } from "../../hub/protocol/index.ts";
import { nsLabel, preview, who, type Output } from "./output.ts";

export type RootEnd = "completed" | "failed" | "interrupted" | "cancelled";

export interface ViewHooks {
  /** A root lifecycle event ended a run. */
  onRootEnd?(end: RootEnd, runId: string | undefined, error: string | undefined): void;
}

/** Renders `event` for thread `threadId`; calls hooks on root ends. */
export function renderEvent(out: Output, threadId: string, event: ProtocolEvent, hooks: ViewHooks = {}): void {
  const ns = event.params.namespace;
  const node = event.params.node;
  const base = { thread_id: threadId, ...(event.run_id === undefined ? {} : { run_id: event.run_id }), namespace: ns };
  switch (event.method) {
    case "lifecycle": {
      const data = event.params.data;
      const cancelled = data.event === "failed" && data.cancelled === true;
      const status = cancelled ? "cancelled" : data.event;
      const error = "error" in data && typeof data.error === "string" ? data.error : undefined;
      out.emit({ type: "lifecycle", ...base, status, ...(error === undefined ? {} : { error }) }, lifecycleLine(ns, status, error, event.run_id));
      if (ns.length === 0 && (status === "completed" || status === "failed" || status === "interrupted" || status === "cancelled")) {
        hooks.onRootEnd?.(status, event.run_id, error);
      }
      return;
    }
    case "tasks": {
      const { name, error, interrupts } = event.params.data;
      if ("input" in event.params.data || "triggers" in event.params.data) {
        out.emit({ type: "node", ...base, node: name, status: "started" }, `▶ ${nsLabel(ns)}${name}`);
        return;
      }
      const status = error ? "failed" : interrupts && interrupts.length > 0 ? "interrupted" : "completed";
      const mark = status === "completed" ? "✓" : status === "failed" ? "✗" : "⏸";
      out.emit({ type: "node", ...base, node: name, status, ...(error ? { error } : {}) }, `${mark} ${nsLabel(ns)}${name}${error ? `: ${error}` : ""}`);
      return;
    }
    case "messages": {
      const data = event.params.data;
      const messageId = typeof data.run_id === "string" ? data.run_id : "message";
      const key = `${ns.join("/")}|${node ?? ""}|${messageId}`;
      if (data.event === "content-block-delta") {
        const delta = data.delta;
        if (delta.type === "text-delta" || delta.type === "reasoning-delta") {
          const text = delta.type === "text-delta" ? delta.text : delta.reasoning;
          out.emit({ type: "token", ...base, node: node ?? null, message_id: messageId, kind: delta.type === "text-delta" ? "text" : "reasoning", text });
          out.inline(key, `  ${nsLabel(ns)}${node ?? "model"} │ `, text);
        }
      } else if (data.event === "content-block-finish" && data.content.type === "tool_call") {
        out.emit({ type: "message", ...base, node: node ?? null, message_id: messageId, status: "tool_call", tool_call: data.content }, `  ${nsLabel(ns)}${node ?? "model"} → ${data.content.name}(${preview(data.content.args, 120)})`);
      } else if (data.event === "message-finish") {
        out.endInline(key);
        out.emit({ type: "message", ...base, node: node ?? null, message_id: messageId, status: "finished", reason: data.reason ?? null });
      } else if (data.event === "error") {
        out.endInline(key);
        out.emit({ type: "message", ...base, node: node ?? null, message_id: messageId, status: "error", error: data.message }, `  ${nsLabel(ns)}${node ?? "model"} ✗ ${data.message}`);
      }
      return;
    }
    case "tools": {
      const data = event.params.data;
      if (data.event === "tool-started") out.emit({ type: "tool", ...base, status: "started", tool_call_id: data.tool_call_id, tool: data.tool_name }, `  tool ${data.tool_name} running`);
      else if (data.event === "tool-finished") out.emit({ type: "tool", ...base, status: "finished", tool_call_id: data.tool_call_id, output: data.output }, `  tool ${data.tool_call_id} → ${preview(data.output, 120)}`);
      else if (data.event === "tool-error") out.emit({ type: "tool", ...base, status: "error", tool_call_id: data.tool_call_id, error: data.message }, `  tool ${data.tool_call_id} ✗ ${data.message}`);
      return;
    }
    case "input.requested": {
      const { interrupt_id, payload } = event.params.data;
      out.emit(
        { type: "interrupt", ...base, interrupt_id, node: node ?? null, payload },
        `? interrupt ${interrupt_id} opened by ${nsLabel(ns)}${node ?? "a node"}: ${preview(payload, 400)}`,
      );
      return;
    }
    case "input.answered": {
      const { interrupt_ids, answered_by } = event.params.data;
      out.emit({ type: "answered", ...base, interrupt_ids, answered_by: answered_by ?? null }, `✔ interrupt ${interrupt_ids.join(", ")} answered by ${who(answered_by)}`);
      return;
    }
    case "input.claimed": {
      const { interrupt_id, claimed_by, expires_at } = event.params.data;
      out.emit({ type: "claimed", ...base, interrupt_id, claimed_by, expires_at }, `  interrupt ${interrupt_id} claimed by ${who(claimed_by)} until ${new Date(expires_at).toLocaleTimeString()}`);
      return;
    }
    case "input.released": {
      const { interrupt_id, released_by } = event.params.data;
      out.emit({ type: "released", ...base, interrupt_id, released_by }, `  interrupt ${interrupt_id} released by ${who(released_by)}`);
      return;
    }
    case "input.expired": {
      const { interrupt_id, action } = event.params.data;
      out.emit({ type: "expired", ...base, interrupt_id, action }, `  interrupt ${interrupt_id} expired (${action})`);
      return;
    }
    case "input.cancelled": {
      const { interrupt_id, reason } = event.params.data;
      out.emit({ type: "cancelled", ...base, interrupt_id, reason }, `  interrupt ${interrupt_id} withdrawn (${reason})`);
      return;
    }
    case "input.escalated": {
      const { interrupt_id, step, steps, queue } = event.params.data;
      out.emit({ type: "escalated", ...base, interrupt_id, step, steps, queue }, `  interrupt ${interrupt_id} escalated to queue ${queue} (step ${step} of ${steps})`);
      return;
    }
    case "input.reminder": {
      const { interrupt_id, reminder, max } = event.params.data;
      out.emit({ type: "reminder", ...base, interrupt_id, reminder, max }, `  interrupt ${interrupt_id} still waits (reminder ${reminder} of ${max})`);
      return;
    }
    case "resync":
      out.status(`(resynced: missed events were dropped by the hub; state rebuilt from its snapshot)`);
      return;
    case "values":
    case "updates":
    case "checkpoints":
    case "custom":
    case "presence":
    case "thread.status":
    // Votes and reassignment: `switchboard review` shows items; the thread view follows the run.
    case "input.voted":
    case "input.reassigned":
      return;
    default:
      return assertNever(event);
  }
}

function lifecycleLine(ns: readonly string[], status: string, error: string | undefined, runId: string | undefined): string | undefined {
  if (ns.length > 0) {
    if (status === "running") return undefined;
    return `  subgraph ${ns.join("/")} ${status}${error ? `: ${error}` : ""}`;
  }
  if (status === "started") return `● run ${runId ?? ""} started`;
  if (status === "running") return undefined;
  return `● run ${runId ?? ""} ${status}${error ? `: ${error}` : ""}`;
}

function assertNever(value: never): never {
  throw new Error(`unhandled event ${JSON.stringify(value)}`);
}
