/**
 * The slow-consumer bound of an HTTP event stream (SSE), the same as a
 * socket's: a reader is dropped once more than `sendHardBytes - sendSoftBytes`
 * bytes wait beyond the stream's high-water mark, or once it has been behind
 * (bytes waiting past the high-water mark) for longer than `sendQueueMaxMs`.
 */
import type { HubLimits } from "../config.ts";

export class SlowReader {
  readonly #limits: Pick<HubLimits, "sendSoftBytes" | "sendHardBytes" | "sendQueueMaxMs">;
  /** Since when the reader has been behind; undefined while it keeps up. */
  #behindSince: number | undefined;

  constructor(limits: Pick<HubLimits, "sendSoftBytes" | "sendHardBytes" | "sendQueueMaxMs">) {
    this.#limits = limits;
  }

  /** After an enqueue: whether the reader is past the bound (`desiredSize` = high-water mark - queued bytes). */
  tooSlow(desiredSize: number | null): boolean {
    const size = desiredSize ?? 0;
    if (size >= 0) {
      this.#behindSince = undefined;
      return false;
    }
    const now = Date.now();
    this.#behindSince ??= now;
    return size < this.#limits.sendSoftBytes - this.#limits.sendHardBytes || now - this.#behindSince > this.#limits.sendQueueMaxMs;
  }
}
