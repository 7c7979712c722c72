/**
 * The one stream sink all producers write to (loop, model hook, custom
 * writer). Producers ask `wants(mode)` first so nothing is built for a mode
 * nobody subscribed to. `StreamQueue` turns pushes into an async iterator.
 */
import type { Namespace, StreamMode, StreamPart, StreamPayloads } from "./types.ts";

export class StreamSink {
  readonly #modes: ReadonlySet<StreamMode>;
  readonly #push: (part: StreamPart) => void;
  readonly subgraphs: boolean;

  constructor(modes: ReadonlySet<StreamMode>, push: (part: StreamPart) => void, subgraphs = false) {
    this.#modes = modes;
    this.#push = push;
    this.subgraphs = subgraphs;
  }

  static readonly silent = new StreamSink(new Set(), () => {});

  wants(mode: StreamMode): boolean {
    return this.#modes.has(mode);
  }

  get active(): boolean {
    return this.#modes.size > 0;
  }

  emit<M extends StreamMode>(type: M, ns: Namespace, data: StreamPayloads[M]): void {
    if (this.#modes.has(type)) this.#push({ type, ns, data } as StreamPart);
  }

  /** For a producer that checked `wants(type)` once: pushes without asking again (a model's per-token path). */
  emitter<M extends StreamMode>(type: M, ns: Namespace): (data: StreamPayloads[M]) => void {
    const push = this.#push;
    return (data) => push({ type, ns, data } as StreamPart);
  }

  /** The sink a subgraph writes to: the same one with `subgraphs`, else silent. */
  forSubgraph(): StreamSink {
    return this.subgraphs ? this : StreamSink.silent;
  }
}

/** Unbounded FIFO with one async consumer; close() or fail() ends it. */
export class StreamQueue<T> implements AsyncIterableIterator<T> {
  #items: T[] = [];
  #head = 0;
  /** The consumer's pending next(), as two fields: no object per wait. */
  #resolve: ((r: IteratorResult<T>) => void) | undefined;
  #reject: ((e: unknown) => void) | undefined;
  /** The executor of every wait: one function for the queue's life, not a closure per next(). */
  readonly #wait = (resolve: (r: IteratorResult<T>) => void, reject: (e: unknown) => void): void => {
    this.#resolve = resolve;
    this.#reject = reject;
  };
  #done = false;
  #error: { error: unknown } | undefined;
  readonly #onReturn: () => void | Promise<unknown>;

  /** `onReturn` runs when the consumer stops early; return() waits for the promise it gives, if any. */
  constructor(onReturn: () => void | Promise<unknown> = () => {}) {
    this.#onReturn = onReturn;
  }

  push(item: T): void {
    if (this.#done) return;
    const resolve = this.#resolve;
    if (resolve) {
      this.#resolve = this.#reject = undefined;
      resolve({ value: item, done: false });
    } else {
      this.#items.push(item);
    }
  }

  close(): void {
    this.#done = true;
    this.#flushWaiter();
  }

  fail(error: unknown): void {
    this.#error = { error };
    this.#done = true;
    this.#flushWaiter();
  }

  #flushWaiter(): void {
    const resolve = this.#resolve;
    const reject = this.#reject;
    if (!resolve || !reject || this.#head < this.#items.length) return;
    this.#resolve = this.#reject = undefined;
    if (this.#error) reject(this.#error.error);
    else resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head++] as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#error) {
      const { error } = this.#error;
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise(this.#wait);
  }

  return(): Promise<IteratorResult<T>> {
    const done: IteratorResult<T> = { value: undefined, done: true };
    if (this.#done) return Promise.resolve(done);
    this.#done = true;
    this.#items = [];
    this.#head = 0;
    const stopped = this.#onReturn();
    return stopped ? stopped.then(() => done, () => done) : Promise.resolve(done);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
