/**
 * One proposed tool call of LangChain's human-in-the-loop request
 * (`{ action_requests: [{ name, args, description }], review_configs }`, snake
 * or camelCase): what a per-action review item asks about, for the web app's
 * item view and the CLI's review listing alike.
 */
import { isRecord } from "../hub/protocol/index.ts";

export interface ProposedCall {
  name: string;
  args: Record<string, unknown>;
  description?: string;
  /** The requests of the payload: one for a per-action item, more for a whole request. */
  count: number;
}

/** The first proposed call of a human-in-the-loop payload, or null when it is not one. */
export function proposedCallOf(payload: unknown): ProposedCall | null {
  if (!isRecord(payload)) return null;
  const requests = payload["action_requests"] ?? payload["actionRequests"];
  if (!Array.isArray(requests) || requests.length === 0) return null;
  const first: unknown = requests[0];
  if (!isRecord(first) || typeof first["name"] !== "string") return null;
  return {
    name: first["name"],
    args: isRecord(first["args"]) ? first["args"] : {},
    ...(typeof first["description"] === "string" ? { description: first["description"] } : {}),
    count: requests.length,
  };
}
