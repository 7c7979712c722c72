/**
 * The SDK's one observable idiom: `on(event, listener)` returns an
 * unsubscribe function; `iterate(source, event)` turns the same source into
 * an async iterator for `for await` (breaking out of the loop unsubscribes).
 */

export type Unsubscribe = () => void;

/** Anything with typed `on`; `M` maps event names to payloads. */
export interface Observable<M> {
  on<K extends keyof M>(event: K, listener: (value: M[K]) => void): Unsubscribe;
}

type ListenerMap<M> = { [K in keyof M]?: Set<(value: M[K]) => void> };

export class Emitter<M> implements Observable<M> {
  #listeners: ListenerMap<M> = {};

  on<K extends keyof M>(event: K, listener: (value: M[K]) => void): Unsubscribe {
    const set = this.#listeners[event] ?? new Set<(value: M[K]) => void>();
    this.#listeners[event] = set;
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /**
   * Calls every listener; one that throws does not stop the others nor the
   * caller (the error is rethrown asynchronously, where it is reported).
   */
  emit<K extends keyof M>(event: K, value: M[K]): void {
    const set = this.#listeners[event];
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** `for await (const value of emitter.iterate(event))`: see `iterate`. */
  iterate<K extends keyof M>(event: K, options: IterateOptions = {}): AsyncIterableIterator<M[K]> {
    return iterate<M, K>(this, event, options);
  }

  /** Listeners currently registered (tests assert it returns to 0). */
  get listenerCount(): number {
    let n = 0;
    for (const key in this.#listeners) n += this.#listeners[key]?.size ?? 0;
    return n;
  }

  clear(): void {
    this.#listeners = {};
  }
}

export interface IterateOptions {
  /** Ends the iteration when aborted. */
  signal?: AbortSignal;
}

/**
 * Every value the source emits for `event`, from now on, in order (buffered
 * while the consumer is busy). Ends on `return()` (a `break`) or the signal.
 */
export function iterate<M, K extends keyof M>(source: Observable<M>, event: K, options: IterateOptions = {}): AsyncIterableIterator<M[K]> {
  // Boxed so that an emitted `undefined` is still a value.
  const buffer: Array<{ value: M[K] }> = [];
  let waiting: ((result: IteratorResult<M[K]>) => void) | undefined;
  let done = false;
  const finish = (): IteratorResult<M[K]> => {
    done = true;
    unsubscribe();
    options.signal?.removeEventListener("abort", onAbort);
    const resolve = waiting;
    waiting = undefined;
    resolve?.({ done: true, value: undefined });
    return { done: true, value: undefined };
  };
  const onAbort = (): void => {
    finish();
  };
  const unsubscribe = source.on(event, (value) => {
    if (done) return;
    const resolve = waiting;
    if (resolve) {
      waiting = undefined;
      resolve({ done: false, value });
    } else {
      buffer.push({ value });
    }
  });
  if (options.signal?.aborted) finish();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    next(): Promise<IteratorResult<M[K]>> {
      const box = buffer.shift();
      if (box) return Promise.resolve({ done: false, value: box.value });
      if (done) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return(): Promise<IteratorResult<M[K]>> {
      buffer.length = 0;
      return Promise.resolve(finish());
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
