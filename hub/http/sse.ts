/**
 * SSE event streams (`POST /threads/:id/stream/events`): one filter per
 * stream, replay first, then live events; `: heartbeat` comments keep the
 * SDK's idle detector armed. Each event's SSE frame is built once and shared
 * by every stream. A stream whose reader falls past the hard bound is ended;
 * the SDK reconnects and gets a replay.
 */
import { encodeEvent, matchesSubscription, type ProtocolEvent, type SubscriptionFilter } from "../protocol/index.ts";
import type { HubServices } from "../services.ts";
import { SSE_END, SSE_HEARTBEAT, sseFrameBytes, sseHead } from "./sse-frame.ts";
import type { LogEntry, LogSubscriber, ReplayResult, ThreadLog } from "../threads/index.ts";
import { SlowReader } from "./slow-reader.ts";

const frameOf = (event: ProtocolEvent, text: string): Uint8Array => sseFrameBytes(event.method, text, event.event_id ?? "");

/** The entry's SSE frame, built once for all streams around the bytes its WebSocket frame already holds. */
export function sseFrame(entry: LogEntry): Uint8Array {
  // A log entry's event_id is String(seq).
  return (entry.sseFrame ??= Buffer.concat([Buffer.from(sseHead(entry.method, String(entry.seq))), entry.payload, SSE_END]));
}

export interface SseStreamOptions {
  log: ThreadLog;
  filter: SubscriptionFilter;
  replay: ReplayResult;
  services: HubServices;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Called once when the stream ends, whatever the reason. */
  onEnd?: () => void;
  /**
   * Drops the HTTP connection of a slow reader. Ending the stream is not
   * enough: the server would keep the queued bytes until the reader drains.
   */
  terminate?: () => void;
}

/** Opens the stream; returns it with `end()` for shutdown. */
export function openSseStream(options: SseStreamOptions): { body: ReadableStream<Uint8Array>; end: () => void } {
  const { log, filter, replay, services, signal } = options;
  const { limits, metrics } = services;
  let ended = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  const slow = new SlowReader(limits);

  const subscriber: LogSubscriber = {
    wants: (event, channel) => matchesSubscription(event, filter, channel),
    deliver: (entry) => write(sseFrame(entry)),
  };

  const cleanup = (): void => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    log.detach(subscriber);
    signal.removeEventListener("abort", end);
    metrics.sseStreams--;
    metrics.subscriptions--;
    options.onEnd?.();
  };

  function end(): void {
    const controller = controllerRef;
    cleanup();
    try {
      controller?.close();
    } catch {
      // already closed or errored
    }
  }

  function write(chunk: Uint8Array): void {
    const controller = controllerRef;
    if (ended || !controller) return;
    controller.enqueue(chunk);
    metrics.deliveries++;
    // desiredSize = soft bound - queued bytes: negative once the reader lags.
    if (slow.tooSlow(controller.desiredSize)) {
      metrics.slowConsumersTerminated++;
      services.logger.warn(`dropped a slow SSE reader of thread ${log.threadId}`, { event: "slow_consumer.dropped", transport: "sse", thread_id: log.threadId, pending_bytes: limits.sendSoftBytes - (controller.desiredSize ?? 0) });
      cleanup();
      // Dropping the connection cancels the stream quietly; erroring it would be logged as a failure.
      if (options.terminate) options.terminate();
      else controller.error(new Error("slow consumer"));
    }
  }

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        metrics.sseStreams++;
        metrics.subscriptions++;
        controller.enqueue(SSE_HEARTBEAT);
        if (replay.kind === "resync") write(frameOf(replay.event, encodeEvent(replay.event)));
        else for (const entry of replay.entries) write(sseFrame(entry));
        if (ended) return;
        log.attach(subscriber);
        heartbeat = setInterval(() => write(SSE_HEARTBEAT), limits.sseHeartbeatMs);
        if (signal.aborted) end();
        else signal.addEventListener("abort", end, { once: true });
      },
      cancel() {
        cleanup();
      },
    },
    { highWaterMark: limits.sendSoftBytes, size: (chunk) => chunk.byteLength },
  );
  return { body, end };
}
