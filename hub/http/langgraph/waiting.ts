/**
 * The answer to a `command.resume` that was accepted while the run's other
 * interrupts are still open (the thread's review policy is "batch", the
 * default): no run starts yet — the resume runs once the last answer
 * arrives, whoever gives it. A LangGraph server would resume at once and
 * pause again on the open ones; the client sees the same end state: the
 * thread's values with `__interrupt__` listing what is still open.
 */
import type { ThreadRecord } from "../../runs/index.ts";
import type { LgDeps } from "./access.ts";
import type { Admission } from "./admission.ts";
import { runOutput } from "./run-output.ts";
import { SSE_HEADERS, sseFrameText } from "../sse-frame.ts";

export async function waitingResponse(deps: LgDeps, thread: ThreadRecord, admission: Extract<Admission, { kind: "waiting" }>, kind: "create" | "wait" | "stream"): Promise<Response> {
  const waiting = { run_id: null, accepted: admission.accepted, pending: admission.pending };
  if (kind === "create") return Response.json({ status: "waiting", ...waiting }, { status: 202 });
  const values = await runOutput(deps, thread, undefined);
  if (kind === "wait") return Response.json(values);
  const frames = [sseFrameText("metadata", JSON.stringify({ ...waiting, attempt: 1 })), sseFrameText("values", JSON.stringify(values))];
  return new Response(frames.join(""), { headers: SSE_HEADERS });
}
