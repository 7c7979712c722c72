/**
 * The slow-consumer bound of an HTTP event stream (SSE), the same as a
 * socket's: a reader is dropped once more than `sendHardBytes - sendSoftBytes`
 * bytes wait beyond the stream's high-water mark, or once it has been behind
 * (bytes waiting past the high-water mark) without reading any of them for
 * longer than `sendQueueMaxMs`.
 */
import type { HubLimits } from "../config.ts";

export class SlowReader {
  readonly #limits: Pick<HubLimits, "sendSoftBytes" | "sendHardBytes" | "sendQueueMaxMs">;
  /** Since when the reader has been behind without reading; undefined while it keeps up or reads. */
  #behindSince: number | undefined;
  #lastSize = 0;

  constructor(limits: Pick<HubLimits, "sendSoftBytes" | "sendHardBytes" | "sendQueueMaxMs">) {
    this.#limits = limits;
  }

  /** After an enqueue: whether the reader is past the bound (`desiredSize` = high-water mark - queued bytes). */
  tooSlow(desiredSize: number | null): boolean {
    const size = desiredSize ?? 0;
    const read = size > this.#lastSize;
    this.#lastSize = size;
    if (size >= 0 || read) {
      this.#behindSince = undefined;
      return size < this.#limits.sendSoftBytes - this.#limits.sendHardBytes;
    }
    const now = Date.now();
    this.#behindSince ??= now;
    return size < this.#limits.sendSoftBytes - this.#limits.sendHardBytes || now - this.#behindSince > this.#limits.sendQueueMaxMs;
  }
}
