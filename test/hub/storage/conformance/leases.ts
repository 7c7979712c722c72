/**
 * The run lease conformance suite: every RunLeases adapter runs these tests
 * from a few-line file. Leases lapse by the adapter's own clock, so expiry is
 * waited for with short TTLs, never faked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunLeases } from "../../../../hub/runs/leases.ts";

export interface LeasesFixture {
  /** Three nodes' views of one store. */
  nodes: [RunLeases, RunLeases, RunLeases];
  dispose(): Promise<void>;
}

const LONG = 60_000;
const SHORT = 80;
const WAIT = { timeout: 10_000, interval: 20 };

export function describeLeasesConformance(name: string, make: () => Promise<LeasesFixture>): void {
  describe(`run lease conformance: ${name}`, () => {
    let fixture: LeasesFixture;
    let a: RunLeases;
    let b: RunLeases;
    let c: RunLeases;
    beforeEach(async () => {
      fixture = await make();
      [a, b, c] = fixture.nodes;
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("gives a thread to one run at a time, names the holder, and frees it on release", async () => {
      const first = await a.acquire("t", "r1", "node-a", LONG);
      expect(first).toMatchObject({ ok: true });
      const token = first.ok ? first.token : -1;
      expect(await b.acquire("t", "r2", "node-b", LONG)).toEqual({ ok: false, holder: { runId: "r1", nodeId: "node-a", token, expired: false } });
      expect(await c.holder("t")).toEqual({ runId: "r1", nodeId: "node-a", token, expired: false });
      expect(await b.acquire("u", "r3", "node-b", LONG)).toMatchObject({ ok: true });
      // Another token does not release it.
      await b.release("t", token + 1000);
      expect(await c.holder("t")).toMatchObject({ runId: "r1" });
      await a.release("t", token);
      expect(await c.holder("t")).toBeUndefined();
      const next = await b.acquire("t", "r2", "node-b", LONG);
      expect(next.ok && next.token).toBeGreaterThan(token);
    });

    it("lets exactly one of several racing nodes take a thread", async () => {
      const results = await Promise.all([a, b, c].flatMap((node, i) => [0, 1, 2].map((k) => node.acquire("t", `r${i}${k}`, `node-${i}`, LONG))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    });

    it("renews while held, lapses by its own clock when not renewed, and stays busy until taken over", async () => {
      const got = await a.acquire("t", "r1", "node-a", SHORT);
      const token = got.ok ? got.token : -1;
      expect(await a.renew("t", token, SHORT)).toBe(true);
      await vi.waitFor(async () => expect((await b.holder("t"))?.expired).toBe(true), WAIT);
      // A lapsed lease still belongs to its run (which awaits takeover): no new run gets the thread.
      expect(await b.acquire("t", "r2", "node-b", LONG)).toMatchObject({ ok: false, holder: { runId: "r1", expired: true } });
      expect(await b.takeOver("node-b", LONG, 10)).toEqual([{ threadId: "t", runId: "r1", token: expect.any(Number), previousNodeId: "node-a" }]);
      // The old holder is fenced: its renewals and releases fail or do nothing.
      expect(await a.renew("t", token, LONG)).toBe(false);
      await a.release("t", token);
      expect(await c.holder("t")).toMatchObject({ runId: "r1", nodeId: "node-b", expired: false });
      expect((await c.holder("t"))!.token).toBeGreaterThan(token);
    });

    it("gives each lapsed lease to exactly one of several nodes taking over at once, never a live one", async () => {
      for (const t of ["t1", "t2", "t3", "t4"]) await a.acquire(t, `run-${t}`, "node-a", SHORT);
      await c.acquire("live", "run-live", "node-c", LONG);
      await vi.waitFor(async () => expect((await b.holder("t4"))?.expired).toBe(true), WAIT);
      const taken = (await Promise.all([b.takeOver("node-b", LONG, 10), c.takeOver("node-c", LONG, 10), b.takeOver("node-b", LONG, 10)])).flat();
      expect(taken.map((t) => t.threadId).sort()).toEqual(["t1", "t2", "t3", "t4"]);
      expect(new Set(taken.map((t) => t.token)).size).toBe(4);
      expect(await b.takeOver("node-b", LONG, 10)).toEqual([]);
      expect(await a.holder("live")).toMatchObject({ nodeId: "node-c", expired: false });
    });

    it("hands a lease over at once, without waiting for it to lapse", async () => {
      const got = await a.acquire("t", "r1", "node-a", LONG);
      await a.handOver("t", got.ok ? got.token : -1);
      const [taken] = await b.takeOver("node-b", LONG, 10);
      expect(taken).toMatchObject({ threadId: "t", runId: "r1", previousNodeId: "node-a" });
    });
  });
}
