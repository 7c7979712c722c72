/**
 * SSE event streams (`POST /threads/:id/stream/events`): one filter per
 * stream, replay first, then live events; `: heartbeat` comments keep the
 * SDK's idle detector armed. Each event's SSE frame is built once and shared
 * by every stream. A stream whose reader falls past the hard bound is ended
 * (event-stream.ts); the SDK reconnects and gets a replay.
 */
import { encodeEvent, matchesSubscription, type ProtocolEvent, type SubscriptionFilter } from "../protocol/index.ts";
import type { HubServices } from "../services.ts";
import type { AppHooks } from "./hooks.ts";
import { SSE_END, sseFrameBytes, sseHead } from "./sse-frame.ts";
import type { LogEntry, LogSubscriber, ReplayResult, ThreadLog } from "../threads/index.ts";
import { openEventStream } from "./event-stream.ts";

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
  hooks: Pick<AppHooks, "trackStream">;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Drops the HTTP connection of a slow reader (see event-stream.ts). */
  terminate?: () => void;
}

/** Opens the stream; returns it with `end()` for shutdown. */
export function openSseStream(options: SseStreamOptions): { body: ReadableStream<Uint8Array>; end: () => void } {
  const { log, filter, replay } = options;
  return openEventStream({
    services: options.services,
    hooks: options.hooks,
    signal: options.signal,
    label: `thread ${log.threadId}`,
    logFields: { thread_id: log.threadId },
    ...(options.terminate ? { terminate: options.terminate } : {}),
    open(sink) {
      if (replay.kind === "resync") sink.write(frameOf(replay.event, encodeEvent(replay.event)));
      else for (const entry of replay.entries) sink.write(sseFrame(entry));
      if (sink.ended) return () => {};
      const subscriber: LogSubscriber = {
        wants: (event, channel) => matchesSubscription(event, filter, channel),
        deliver: (entry) => sink.write(sseFrame(entry)),
      };
      log.attach(subscriber);
      return () => log.detach(subscriber);
    },
  });
}
