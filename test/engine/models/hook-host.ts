/**
 * A recording RunHookHost installed through the real hook mechanism
 * (runWithHooks), standing in for the engine's run around a task.
 */
import { runWithHooks } from "../../../engine/runtime/hooks.ts";
import type { ModelCallInfo, RunHookHost, ToolCallInfo } from "../../../engine/runtime/hooks.ts";

export type ToolEvent =
  | ["started", ToolCallInfo]
  | ["delta", string, unknown]
  | ["finished", string, unknown]
  | ["error", string, string];

export interface RecordingHost {
  host: RunHookHost;
  modelCalls: ModelCallInfo[];
  /** Every chunk an observer got, with the number of the model call it belongs to. */
  chunks: Array<{ call: number; chunk: unknown }>;
  toolEvents: ToolEvent[];
  run<T>(fn: () => T): T;
}

export function recordingHost(): RecordingHost {
  const modelCalls: ModelCallInfo[] = [];
  const chunks: RecordingHost["chunks"] = [];
  const toolEvents: ToolEvent[] = [];
  const host: RunHookHost = {
    observeModelCall(info) {
      const call = modelCalls.push(info) - 1;
      return { onChunk: (chunk) => chunks.push({ call, chunk }) };
    },
    observeToolCall(info) {
      toolEvents.push(["started", info]);
      const id = info.toolCallId;
      return {
        onOutputDelta: (delta) => toolEvents.push(["delta", id, delta]),
        onFinished: (output) => toolEvents.push(["finished", id, output]),
        onError: (message) => toolEvents.push(["error", id, message]),
      };
    },
  };
  return { host, modelCalls, chunks, toolEvents, run: (fn) => runWithHooks(host, fn) };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
