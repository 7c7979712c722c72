/**
 * Tool executions projection: one entry per `tool_call_id` from the `tools`
 * channel (tool-started → tool-output-delta* → tool-finished | tool-error),
 * to show next to the tool calls of the messages projection. Pure.
 */
import type { EventOf, Namespace } from "../../hub/protocol/index.ts";

export interface ToolRunView {
  tool_call_id: string;
  tool_name: string | undefined;
  namespace: Namespace;
  node: string | undefined;
  input: unknown;
  status: "running" | "finished" | "error";
  /** Streamed output text (tool-output-delta), joined. */
  partial: string;
  output?: unknown;
  error?: { message: string; code?: string };
}

export function reduceTools(tools: readonly ToolRunView[], event: EventOf<"tools">): readonly ToolRunView[] {
  const data = event.params.data;
  const at = tools.findIndex((t) => t.tool_call_id === data.tool_call_id);
  const current: ToolRunView = tools[at] ?? {
    tool_call_id: data.tool_call_id,
    tool_name: undefined,
    namespace: event.params.namespace,
    node: event.params.node,
    input: undefined,
    status: "running",
    partial: "",
  };
  let next: ToolRunView;
  switch (data.event) {
    case "tool-started":
      next = { ...current, tool_name: data.tool_name, input: data.input, status: "running" };
      break;
    case "tool-output-delta":
      next = { ...current, partial: current.partial + data.delta };
      break;
    case "tool-finished":
      next = { ...current, status: "finished", output: data.output };
      break;
    case "tool-error":
      next = { ...current, status: "error", error: { message: data.message, ...(data.code === undefined ? {} : { code: data.code }) } };
      break;
    default:
      return tools;
  }
  if (at === -1) return [...tools, next];
  const list = [...tools];
  list[at] = next;
  return list;
}
