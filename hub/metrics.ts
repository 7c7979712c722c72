/**
 * Process-wide hub counters and their Prometheus text rendering. Plain
 * numbers bumped on hot paths; rendering reads run counts from the store.
 */
import type { PresenceCounts } from "./presence/index.ts";
import type { RunStatus } from "./runs/store.ts";

/** The hub's counters (gauges and totals since start), as /metrics reports them. */
export interface HubCounters {
  /** Open WebSocket connections. */
  readonly connections: number;
  /** Open SSE event streams. */
  readonly sseStreams: number;
  /** Active subscriptions over all transports. */
  readonly subscriptions: number;
  readonly eventsPublished: number;
  readonly deliveries: number;
  readonly framesRejected: number;
  readonly slowConsumerBacklogs: number;
  readonly slowConsumersTerminated: number;
  readonly deltasCoalesced: number;
  readonly rateLimited: number;
  /** Bytes waiting in slow sockets' send queues (not yet handed to a socket). */
  readonly sendQueuedBytes: number;
  /** The most bytes one socket's send queue has held since start. */
  readonly sendQueuePeakBytes: number;
}

/** `Hub.stats()`: the numbers of /metrics (run counts aside) for code that embeds a hub. */
export interface HubStats extends HubCounters {
  /** Thread event logs held in memory. */
  readonly threadsLoaded: number;
  /** Review-queue subscriptions (sockets and SSE). */
  readonly reviewQueueSubscribers: number;
  /** Presence rooms, members, awareness states and their counters. */
  readonly presence: PresenceCounts;
  /** Subscriptions kept for `subscription.reconnect` after their connection closed, and their bytes. */
  readonly retainedSubscriptions: number;
  readonly retainedSubscriptionBytes: number;
}

export class HubMetrics implements HubCounters {
  connections = 0;
  sseStreams = 0;
  subscriptions = 0;
  eventsPublished = 0;
  deliveries = 0;
  framesRejected = 0;
  slowConsumerBacklogs = 0;
  slowConsumersTerminated = 0;
  deltasCoalesced = 0;
  rateLimited = 0;
  sendQueuedBytes = 0;
  sendQueuePeakBytes = 0;

  /** A copy of the counters as they are now. */
  snapshot(): HubCounters {
    const { connections, sseStreams, subscriptions, eventsPublished, deliveries, framesRejected, slowConsumerBacklogs, slowConsumersTerminated, deltasCoalesced, rateLimited, sendQueuedBytes, sendQueuePeakBytes } = this;
    return { connections, sseStreams, subscriptions, eventsPublished, deliveries, framesRejected, slowConsumerBacklogs, slowConsumersTerminated, deltasCoalesced, rateLimited, sendQueuedBytes, sendQueuePeakBytes };
  }

  render(threads: number, runs: Record<RunStatus, number>, retained: { count: number; bytes: number }): string {
    const lines: string[] = [];
    const metric = (name: string, type: "gauge" | "counter", help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
    };
    metric("switchboard_connections", "gauge", "Open WebSocket connections.", this.connections);
    metric("switchboard_sse_streams", "gauge", "Open SSE event streams.", this.sseStreams);
    metric("switchboard_subscriptions", "gauge", "Active subscriptions over all transports.", this.subscriptions);
    metric("switchboard_threads_loaded", "gauge", "Thread event logs held in memory.", threads);
    metric("switchboard_events_total", "counter", "Events published to thread logs (rate() gives events/s).", this.eventsPublished);
    metric("switchboard_deliveries_total", "counter", "Event frames written to clients.", this.deliveries);
    metric("switchboard_frames_rejected_total", "counter", "Inbound frames answered with a typed error.", this.framesRejected);
    metric("switchboard_rate_limited_total", "counter", "Commands and REST requests refused by a rate limit (per socket, per REST caller).", this.rateLimited);
    metric("switchboard_slow_consumer_deltas_coalesced_total", "counter", "Message deltas merged for slow consumers.", this.deltasCoalesced);
    metric("switchboard_slow_consumer_backlogs_total", "counter", "Times a connection fell behind and its frames started to queue (deltas coalesce).", this.slowConsumerBacklogs);
    metric("switchboard_slow_consumers_terminated_total", "counter", "Connections terminated as slow consumers.", this.slowConsumersTerminated);
    metric("switchboard_send_queued_bytes", "gauge", "Bytes waiting in slow sockets' send queues.", this.sendQueuedBytes);
    metric("switchboard_send_queue_peak_bytes", "gauge", "The most bytes one socket's send queue has held since start.", this.sendQueuePeakBytes);
    metric("switchboard_retained_subscriptions", "gauge", "Subscriptions kept for subscription.reconnect after their connection closed.", retained.count);
    metric("switchboard_retained_subscription_bytes", "gauge", "Bytes of the subscriptions kept for subscription.reconnect.", retained.bytes);
    lines.push("# HELP switchboard_runs Runs in the hub store by status.", "# TYPE switchboard_runs gauge");
    for (const [status, count] of Object.entries(runs)) lines.push(`switchboard_runs{status="${status}"} ${count}`);
    return `${lines.join("\n")}\n`;
  }
}

/** Presence rooms and review-queue subscribers, in the same text format. */
export function renderReviewMetrics(presence: PresenceCounts, queueSubscribers: number): string {
  const lines: string[] = [];
  const metric = (name: string, type: "gauge" | "counter", help: string, value: number): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
  };
  metric("switchboard_review_queue_subscribers", "gauge", "Review-queue subscriptions (sockets and SSE).", queueSubscribers);
  metric("switchboard_presence_rooms", "gauge", "Presence rooms (threads and queues with a member).", presence.rooms);
  metric("switchboard_presence_connections", "gauge", "Connections in at least one presence room.", presence.connections);
  metric("switchboard_presence_states", "gauge", "Awareness states held.", presence.states);
  metric("switchboard_presence_updates_total", "counter", "presence.update frames applied.", presence.updatesApplied);
  metric("switchboard_presence_updates_rejected_total", "counter", "presence.update frames refused.", presence.updatesRejected);
  metric("switchboard_presence_frames_relayed_total", "counter", "Batched presence relay frames.", presence.framesRelayed);
  return `${lines.join("\n")}\n`;
}
