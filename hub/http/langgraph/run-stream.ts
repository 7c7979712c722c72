/**
 * One run of the thread log as a LangGraph run stream (SSE): the run's
 * buffered events first (the replay), then live ones, each translated
 * (stream-format.ts) and sent with an SSE id; the stream ends with the run's
 * root terminal event. Attaching and computing the replay happen in one
 * synchronous step, so no event falls between them.
 *
 * SSE ids come from the thread's seq: the first frame of log event `seq` is
 * `id: <seq>`, the next ones `<seq>.1`, `<seq>.2`… `Last-Event-ID` names the
 * last frame a client has; a reconnect re-translates the run from its first
 * event (modes that accumulate, like `messages`, need it) and sends only
 * the frames after that one.
 */
import type { HubServices } from "../../services.ts";
import type { LogEntry, LogSubscriber, ThreadLog } from "../../threads/index.ts";
import type { LgFrame, RunStreamTranslator } from "./stream-format.ts";
import type { AppHooks } from "../hooks.ts";
import { sseFrameBytes } from "../sse-frame.ts";
import { openEventStream, type EventStreamSink } from "../event-stream.ts";

export interface StreamPosition {
  seq: number;
  index: number;
}

/** `Last-Event-ID` as a position; undefined for none or "-1" (the SDK's "from the start"). */
export function positionOf(lastEventId: string | undefined): StreamPosition | undefined {
  const match = lastEventId === undefined ? null : /^(\d+)(?:\.(\d+))?$/.exec(lastEventId.trim());
  if (!match?.[1]) return undefined;
  return { seq: Number(match[1]), index: match[2] === undefined ? 0 : Number(match[2]) };
}

const frameId = (seq: number, index: number): string => (index === 0 ? String(seq) : `${seq}.${index}`);

export interface RunStreamOptions {
  log: ThreadLog;
  runId: string;
  translator: RunStreamTranslator;
  /** The last frame the client has (Last-Event-ID). */
  after: StreamPosition | undefined;
  /** Sent first, as `event: metadata` (a new run's stream, or a join from the start). */
  metadata: Record<string, unknown> | undefined;
  /** The run had ended before the stream opened: end after the replay even if its end is gone from the buffer. */
  ended: boolean;
  services: HubServices;
  hooks: Pick<AppHooks, "trackStream">;
  signal: AbortSignal;
  /** Called once when the stream ends, whatever the reason. */
  onEnd?: () => void;
  /** The client went away before the run ended (`on_disconnect: "cancel"`). */
  onDisconnect?: () => void;
  /** Drops a slow reader's connection (see event-stream.ts). */
  terminate?: () => void;
}

export function openRunStream(o: RunStreamOptions): { body: ReadableStream<Uint8Array>; end: () => void } {
  const { log, runId, translator, services } = o;
  const { logger } = services;
  const queue: LogEntry[] = [];
  let pumping = false;
  let replayed = false;
  let sink: EventStreamSink | undefined;

  const send = (frame: LgFrame, id: string | undefined): void => {
    sink?.write(sseFrameBytes(frame.event, JSON.stringify(frame.data) ?? "null", id));
  };

  /** Translates queued entries one at a time (a checkpoint payload is read asynchronously). */
  async function pump(): Promise<void> {
    if (pumping || sink === undefined) return;
    const out = sink;
    pumping = true;
    try {
      while (!out.ended && queue.length > 0) {
        const entry = queue.shift() as LogEntry;
        const after = o.after;
        const skip = after === undefined || entry.seq > after.seq ? 0 : entry.seq === after.seq ? after.index + 1 : Infinity;
        let frames: LgFrame[];
        try {
          frames = await translator.push(entry.event, skip !== Infinity);
        } catch (error) {
          logger.error(`langgraph stream of run ${runId}: ${error instanceof Error ? error.message : String(error)}`);
          frames = [];
        }
        frames.forEach((frame, index) => {
          if (index >= skip) send(frame, frameId(entry.seq, index));
        });
        if (translator.end !== undefined) out.end();
      }
      if (!out.ended && replayed && o.ended && queue.length === 0) out.end();
    } finally {
      pumping = false;
    }
  }

  const subscriber: LogSubscriber = {
    wants: (event) => event.run_id === runId,
    deliver: (entry) => {
      queue.push(entry);
      void pump();
    },
  };

  return openEventStream({
    services,
    hooks: o.hooks,
    signal: o.signal,
    label: `run ${runId}`,
    logFields: { thread_id: log.threadId, run_id: runId },
    heartbeatFirst: false,
    ...(o.onEnd ? { onEnd: o.onEnd } : {}),
    ...(o.terminate ? { terminate: o.terminate } : {}),
    // Gone before the run's end was sent: the client left early.
    onClientGone: () => {
      if (translator.end === undefined) o.onDisconnect?.();
    },
    open(opened) {
      sink = opened;
      if (o.metadata) send({ event: "metadata", data: o.metadata }, "0");
      // One synchronous step: the replay, then attached for what follows.
      queue.push(...log.runEntries(runId));
      log.attach(subscriber);
      replayed = true;
      void pump();
      return () => {
        log.detach(subscriber);
        queue.length = 0;
      };
    },
  });
}
