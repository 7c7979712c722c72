/** The one observable idiom: on() → unsubscribe, iterate() for `for await`; and the backoff curve. */
import { describe, expect, it } from "vitest";
import { DEFAULT_BACKOFF, Emitter, backoffDelay, iterate } from "../../client/index.ts";

interface Events {
  n: number;
  maybe: string | undefined;
}

describe("Emitter and iterate", () => {
  it("on() returns an unsubscribe; a throwing listener does not stop the others", async () => {
    const e = new Emitter<Events>();
    const seen: number[] = [];
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on("uncaughtException", onError);
    const off1 = e.on("n", () => {
      throw new Error("listener bug");
    });
    const off2 = e.on("n", (v) => seen.push(v));
    e.emit("n", 1);
    off2();
    e.emit("n", 2);
    off1();
    await new Promise((r) => setImmediate(r));
    process.off("uncaughtException", onError);
    expect(seen).toEqual([1]);
    expect(errors).toHaveLength(2);
    expect(e.listenerCount).toBe(0);
  });

  it("iterate() yields buffered values in order, undefined included, and unsubscribes on break", async () => {
    const e = new Emitter<Events>();
    const it1 = e.iterate("maybe");
    e.emit("maybe", "a");
    e.emit("maybe", undefined);
    e.emit("maybe", "c");
    const got: Array<string | undefined> = [];
    for await (const v of it1) {
      got.push(v);
      if (got.length === 3) break;
    }
    expect(got).toEqual(["a", undefined, "c"]);
    expect(e.listenerCount).toBe(0);
  });

  it("iterate() ends when its signal aborts, also while waiting", async () => {
    const e = new Emitter<Events>();
    const controller = new AbortController();
    const iterator = iterate<Events, "n">(e, "n", { signal: controller.signal });
    const pending = iterator.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(e.listenerCount).toBe(0);
  });
});

describe("backoffDelay", () => {
  it("grows exponentially up to the cap, jitter within [d·(1-j), d]", () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, DEFAULT_BACKOFF, top))).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelay(30, DEFAULT_BACKOFF, top)).toBe(DEFAULT_BACKOFF.maxDelayMs);
    expect(backoffDelay(2, DEFAULT_BACKOFF, () => 0)).toBe(500);
    const noJitter = { ...DEFAULT_BACKOFF, jitter: 0 };
    expect(backoffDelay(1, noJitter, () => 0)).toBe(500);
  });
});
