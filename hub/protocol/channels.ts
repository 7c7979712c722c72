/**
 * Which subscription channel an event is on, and whether it matches a
 * subscription filter — the same rules as the official SDK's client-side
 * matching, so hub and SDK agree on what a subscription receives.
 */
import { assertNever } from "./assert-never.ts";
import type { Channel, Namespace, ProtocolEvent } from "./types.ts";

/**
 * The channel of an event, or null for frames that are not channel-filtered
 * (`presence`, `thread.status`, `resync`: the hub decides who gets them).
 */
export function channelOf(event: ProtocolEvent): Channel | null {
  switch (event.method) {
    case "lifecycle":
    case "messages":
    case "tools":
    case "values":
    case "updates":
    case "checkpoints":
    case "tasks":
      return event.method;
    case "custom":
      return event.params.data.name === undefined ? "custom" : `custom:${event.params.data.name}`;
    case "input.requested":
    case "input.answered":
    case "input.claimed":
    case "input.released":
    case "input.expired":
    case "input.cancelled":
    case "input.escalated":
    case "input.reminder":
    case "input.voted":
    case "input.reassigned":
      return "input";
    case "presence":
    case "thread.status":
    case "resync":
      return null;
    default:
      return assertNever(event, "event");
  }
}

export interface SubscriptionFilter {
  channels: readonly Channel[];
  /** Prefix-match these namespaces; absent = every namespace. */
  namespaces?: readonly Namespace[] | undefined;
  /** Max depth below the matched prefix; absent = unlimited. */
  depth?: number | undefined;
}

/**
 * A filter segment without ":" also matches an event segment "node:taskId"
 * by its node part, so `["researcher"]` selects every researcher subgraph.
 */
function isPrefixMatch(namespace: Namespace, prefix: Namespace): boolean {
  if (prefix.length > namespace.length) return false;
  return prefix.every((segment, i) => {
    const candidate = namespace[i] ?? "";
    if (candidate === segment) return true;
    if (segment.includes(":")) return false;
    const colon = candidate.indexOf(":");
    return colon !== -1 && candidate.slice(0, colon) === segment;
  });
}

/** No namespaces = every namespace (depth then does not apply). */
export function namespaceMatches(namespace: Namespace, filter: Pick<SubscriptionFilter, "namespaces" | "depth">): boolean {
  if (filter.namespaces === undefined || filter.namespaces.length === 0) return true;
  return filter.namespaces.some(
    (prefix) => isPrefixMatch(namespace, prefix) && (filter.depth === undefined || namespace.length - prefix.length <= filter.depth),
  );
}

/**
 * `custom` also receives every `custom:<name>`; `custom:<name>` only its own.
 * A caller matching one event against many filters passes its channel, worked out once.
 */
export function matchesSubscription(event: ProtocolEvent, filter: SubscriptionFilter, channel: Channel | null = channelOf(event)): boolean {
  return matchesRoute(channel, event.params.namespace, filter);
}

/** matchesSubscription on an event's channel and namespace alone. */
export function matchesRoute(channel: Channel | null, namespace: Namespace, filter: SubscriptionFilter): boolean {
  if (channel === null) return false;
  const channelOk = filter.channels.includes(channel) || (channel.startsWith("custom:") && filter.channels.includes("custom"));
  return channelOk && namespaceMatches(namespace, filter);
}
