/**
 * Run commands between nodes, on the event bus's topics: a `run.cancel` (or
 * a `run.start` with multitask_strategy "interrupt"/"rollback") taken by one
 * node for a run another node executes is sent to that node (the lease names
 * it), which stops the run and answers once it ended and let go of the
 * thread; a `run.cancel` of a run queued on another node (a queued run's
 * record names no node) is asked of every node, and the one that holds it
 * in its queue cancels it and answers; and "the thread is free" is told to
 * every node when a run ends, so a run one of them queued behind it starts.
 * Messages are live only: a lost one costs a timeout (cancel) or a sweep
 * (queued runs), never a wrong state.
 */
import { nanoid } from "nanoid";
import type { EventBus } from "../threads/index.ts";

export type StopReason = "cancelled" | "interrupt" | "rollback";

export interface StopOutcome {
  /** The node ran that run and stopped it (false: it had ended, or was not there). */
  found: boolean;
  /** The head checkpoint when the run began, for a rollback. */
  startCheckpointId?: string | undefined;
}

export interface RunControlHandlers {
  stop(threadId: string, runId: string, reason: StopReason): Promise<StopOutcome>;
  /** Cancels the run if this node holds it in its queue; whether it did. */
  unqueue(threadId: string, runId: string): Promise<boolean>;
  threadFree(threadId: string): void;
}

type Message =
  | { op: "stop"; id: string; from: string; threadId: string; runId: string; reason: StopReason }
  | { op: "stopped"; id: string; outcome: StopOutcome }
  | { op: "unqueue"; id: string; from: string; threadId: string; runId: string }
  | { op: "free"; from: string; threadId: string };

const FREE_TOPIC = "runs:free";
const QUEUED_TOPIC = "runs:queued";

export class NodeUnreachableError extends Error {
  readonly code = "NODE_UNREACHABLE";
  override readonly name = "NodeUnreachableError";
}

export class RunControl {
  readonly #bus: EventBus;
  readonly #nodeId: string;
  readonly #onError: (error: unknown, context: string) => void;
  readonly #waiting = new Map<string, (outcome: StopOutcome) => void>();
  #offs: Array<() => void> = [];

  constructor(options: { bus: EventBus; nodeId: string; onError?: (error: unknown, context: string) => void }) {
    this.#bus = options.bus;
    this.#nodeId = options.nodeId;
    this.#onError = options.onError ?? (() => {});
  }

  async start(handlers: RunControlHandlers): Promise<void> {
    const onMessage = (text: string): void => {
      let message: Message;
      try {
        message = JSON.parse(text) as Message;
      } catch (error) {
        this.#onError(error, "a run command from another node");
        return;
      }
      switch (message.op) {
        case "stop":
          handlers
            .stop(message.threadId, message.runId, message.reason)
            .catch((error: unknown): StopOutcome => {
              this.#onError(error, `stopping run ${message.runId} for node ${message.from}`);
              return { found: false };
            })
            .then((outcome) => this.#send(`n:${message.from}`, { op: "stopped", id: message.id, outcome }))
            .catch((error: unknown) => this.#onError(error, `answering node ${message.from}`));
          return;
        case "unqueue":
          if (message.from === this.#nodeId) return;
          handlers
            .unqueue(message.threadId, message.runId)
            .then((found) => (found ? this.#send(`n:${message.from}`, { op: "stopped", id: message.id, outcome: { found } }) : undefined))
            .catch((error: unknown) => this.#onError(error, `cancelling queued run ${message.runId} for node ${message.from}`));
          return;
        case "stopped":
          this.#waiting.get(message.id)?.(message.outcome);
          return;
        case "free":
          if (message.from !== this.#nodeId) handlers.threadFree(message.threadId);
          return;
      }
    };
    this.#offs.push(
      await this.#bus.subscribe(`n:${this.#nodeId}`, onMessage),
      await this.#bus.subscribe(FREE_TOPIC, onMessage),
      await this.#bus.subscribe(QUEUED_TOPIC, onMessage),
    );
  }

  /** Asks `nodeId` to stop the run; resolves once it ended there (and the thread's lease is free). */
  async stop(nodeId: string, threadId: string, runId: string, reason: StopReason, timeoutMs: number): Promise<StopOutcome> {
    const id = nanoid();
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<StopOutcome>((resolve, reject) => {
      this.#waiting.set(id, resolve);
      timer = setTimeout(() => reject(new NodeUnreachableError(`node ${nodeId} did not stop run ${runId} within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await this.#send(`n:${nodeId}`, { op: "stop", id, from: this.#nodeId, threadId, runId, reason });
      return await answered;
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(id);
    }
  }

  /**
   * Asks every other node to cancel a run it holds queued. Only the node that
   * has it answers: `found: false` once `timeoutMs` passed with no answer.
   */
  async unqueue(threadId: string, runId: string, timeoutMs: number): Promise<StopOutcome> {
    const id = nanoid();
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<StopOutcome>((resolve) => {
      this.#waiting.set(id, resolve);
      timer = setTimeout(() => resolve({ found: false }), timeoutMs);
    });
    try {
      await this.#send(QUEUED_TOPIC, { op: "unqueue", id, from: this.#nodeId, threadId, runId });
      return await answered;
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(id);
    }
  }

  /** Tells every node that this thread has no active run now. */
  threadFree(threadId: string): void {
    this.#send(FREE_TOPIC, { op: "free", from: this.#nodeId, threadId }).catch((error: unknown) => this.#onError(error, `telling other nodes thread ${threadId} is free`));
  }

  close(): void {
    for (const off of this.#offs.splice(0)) off();
  }

  #send(topic: string, message: Message): Promise<void> {
    return this.#bus.publish(topic, JSON.stringify(message));
  }
}
