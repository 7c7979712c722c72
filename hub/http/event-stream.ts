/**
 * The lifecycle every SSE event stream of the hub shares — a thread's
 * events (sse.ts), a LangGraph run (langgraph/run-stream.ts), a review queue
 * (reviews.ts): counted in the metrics while open, `: heartbeat` comments
 * on a timer, ended by the client going away, by the hub shutting down
 * (`AppHooks.trackStream`) or by its source, and bounded like a socket: a
 * reader past the slow-consumer bound (SlowReader) is dropped, connection
 * and all, so the hub never holds more for it than the bound.
 */
import type { HubServices } from "../services.ts";
import type { AppHooks } from "./hooks.ts";
import { SSE_HEARTBEAT } from "./sse-frame.ts";
import { SlowReader } from "./slow-reader.ts";

/** What a stream's source writes to. */
export interface EventStreamSink {
  /** Queues a chunk for the reader (nothing once the stream has ended). */
  write(chunk: Uint8Array): void;
  /** Ends the stream: the response completes. */
  end(): void;
  readonly ended: boolean;
}

export interface EventStreamOptions {
  services: Pick<HubServices, "limits" | "metrics" | "logger">;
  hooks: Pick<AppHooks, "trackStream">;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Names the stream in the slow-reader warning ("thread t-1"), with its log fields. */
  label: string;
  logFields?: Record<string, unknown>;
  /**
   * Called once, when the stream starts: writes what comes first (a replay,
   * a snapshot) and attaches the live source. Returns what detaches it,
   * called once when the stream ends, whatever the reason.
   */
  open(sink: EventStreamSink): () => void;
  /** The client went away (aborted or cancelled the stream), after the stream ended. */
  onClientGone?: () => void;
  /** Called once when the stream ends, whatever the reason. */
  onEnd?: () => void;
  /** Starts with a `: heartbeat` comment, which gets the response's headers out at once (default true). */
  heartbeatFirst?: boolean;
  /**
   * Drops the HTTP connection of a slow reader. Ending the stream is not
   * enough: the server would keep the queued bytes until the reader drains.
   */
  terminate?: () => void;
}

/** Opens the stream; returns it with `end()` (shutdown ends it the same way). */
export function openEventStream(o: EventStreamOptions): { body: ReadableStream<Uint8Array>; end: () => void } {
  const { services, signal } = o;
  const { limits, metrics, logger } = services;
  const slow = new SlowReader(limits);
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let detach: (() => void) | undefined;
  let ended = false;
  let untrack = (): void => {};

  const cleanup = (): void => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    signal.removeEventListener("abort", onAbort);
    metrics.sseStreams--;
    metrics.subscriptions--;
    detach?.();
    untrack();
    o.onEnd?.();
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

  function onAbort(): void {
    end();
    o.onClientGone?.();
  }

  function enqueue(chunk: Uint8Array, counted: boolean): void {
    const controller = controllerRef;
    if (ended || !controller) return;
    controller.enqueue(chunk);
    if (counted) metrics.deliveries++;
    // desiredSize = soft bound - queued bytes: negative once the reader lags.
    if (!slow.tooSlow(controller.desiredSize)) return;
    metrics.slowConsumersTerminated++;
    logger.warn(`dropped a slow SSE reader of ${o.label}`, { event: "slow_consumer.dropped", transport: "sse", ...o.logFields, pending_bytes: limits.sendSoftBytes - (controller.desiredSize ?? 0) });
    cleanup();
    // Dropping the connection cancels the stream quietly; erroring it would be logged as a failure.
    if (o.terminate) o.terminate();
    else controller.error(new Error("slow consumer"));
  }

  const sink: EventStreamSink = {
    write: (chunk) => enqueue(chunk, true),
    end,
    get ended() {
      return ended;
    },
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        metrics.sseStreams++;
        metrics.subscriptions++;
        if (o.heartbeatFirst !== false) controller.enqueue(SSE_HEARTBEAT);
        const attached = o.open(sink);
        // The source may have ended the stream while it opened (a reader already too slow, nothing left to send).
        if (ended) return attached();
        detach = attached;
        heartbeat = setInterval(() => enqueue(SSE_HEARTBEAT, false), limits.sseHeartbeatMs);
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      },
      cancel() {
        cleanup();
        o.onClientGone?.();
      },
    },
    { highWaterMark: limits.sendSoftBytes, size: (chunk) => chunk.byteLength },
  );
  // The constructor ran start(): a stream that ended there has nothing to track.
  if (!ended) untrack = o.hooks.trackStream(end);
  return { body, end };
}
