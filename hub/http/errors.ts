/**
 * The one error → Response of the HTTP surface. The body is the WebSocket
 * error reply without its `type` and `id` (`{ error, message, details? }`,
 * and for already_answered `winner` and `answered_at`), so a client reads the
 * same fields whichever transport refused it. The LangGraph API adds the
 * Python server's `detail` on top (hub/http/langgraph/http.ts).
 */
import { httpStatusOf, type ErrorResponse, type SwitchboardError } from "../protocol/index.ts";
import { toSwitchboardError } from "../runs/index.ts";
import { errorReply } from "../sessions/commands.ts";

export type ErrorBody = Omit<ErrorResponse, "type" | "id" | "thread_id">;

/** The error fields every HTTP error body carries. */
export function errorBody(e: SwitchboardError): ErrorBody {
  const { type: _type, id: _id, thread_id: _thread, ...body } = errorReply(null, e);
  return body;
}

/**
 * A JSON error Response with the code's HTTP status; `decorate` may add
 * fields (never remove them). A plain Response: Hono's typed helpers accept
 * only literal status codes.
 */
export function failResponse(error: unknown, decorate?: (body: ErrorBody, e: SwitchboardError) => Record<string, unknown>): Response {
  const e = toSwitchboardError(error);
  const body = errorBody(e);
  const json = decorate ? { ...decorate(body, e), ...body } : body;
  return new Response(JSON.stringify(json), { status: httpStatusOf(e.code), headers: { "content-type": "application/json" } });
}
