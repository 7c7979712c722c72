/**
 * The audit export conformance suite: every ReviewStore backend runs these
 * from a few-line test file. Lines a principal's request wrote carry where it
 * came from; exportAudit pages one tenant's lines in write order, filtered by
 * time, thread, queue and person, refused attempts (with their reason) included.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withRequestSource, type Principal } from "../../../../hub/auth/index.ts";
import type { AuditExportFilter } from "../../../../hub/review/audit-export.ts";
import type { ReviewStore } from "../../../../hub/review/index.ts";
import { T0, alice, bob, eve, iso, newItem } from "../../review/fixtures.ts";

const viaWs = (p: Principal): Principal => withRequestSource(p, "ws", "10.0.0.7", "Mozilla/5.0 (X11) \"quoted\", with comma");
const viaHttp = (p: Principal): Principal => withRequestSource(p, "http", "::1", undefined);

export interface AuditExportFixture {
  store: ReviewStore;
  dispose(): Promise<void>;
}

export function describeAuditExportConformance(name: string, make: () => Promise<AuditExportFixture>): void {
  describe(`review audit export conformance: ${name}`, () => {
    let fixture: AuditExportFixture;
    const store = (): ReviewStore => fixture.store;
    const all = (over: Partial<AuditExportFilter> = {}) => store().exportAudit({ tenant: "acme", after: 0, limit: 1000, ...over });
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    /** i1 (t1, queue ops): alice claims over ws, bob is refused twice over http (one line), alice answers; i2 (t2, queue sales) is answered by bob; g1 is another tenant's. */
    async function history(): Promise<void> {
      await store().createItem(newItem("i1", { routing: { queue: "ops", users: ["alice"] } }), T0);
      await store().createItem(newItem("i2", { threadId: "t2", runId: "r2", routing: { queue: "sales" } }), T0 + 1000);
      await store().createItem(newItem("g1", { tenant: "globex", threadId: "tg", runId: "rg" }), T0 + 1500);
      expect((await store().claim("i1", viaWs(alice), 60_000, T0 + 2000)).ok).toBe(true);
      expect((await store().answer("i1", viaHttp(bob), "no", T0 + 3000)).ok).toBe(false);
      expect((await store().answer("i1", viaHttp(bob), "no!", T0 + 3100)).ok).toBe(false);
      expect((await store().answer("i1", viaWs(alice), "yes", T0 + 4000)).ok).toBe(true);
      expect((await store().answer("i2", viaHttp(bob), "fine", T0 + 5000)).ok).toBe(true);
      expect((await store().answer("g1", withRequestSource(eve, "http", "192.0.2.1", "curl"), "x", T0 + 6000)).ok).toBe(true);
    }

    it("records where each action came from, on the lines the principal wrote (and only those)", async () => {
      await history();
      const trail = await store().auditOf("i1");
      expect(trail.map((e) => [e.kind, e.source?.transport ?? null])).toEqual([["requested", null], ["claimed", "ws"], ["rejected", "http"], ["answered", "ws"]]);
      expect(trail[1]?.source).toEqual({ transport: "ws", remote: "10.0.0.7", userAgent: "Mozilla/5.0 (X11) \"quoted\", with comma" });
      expect(trail[2]?.source).toEqual({ transport: "http", remote: "::1", userAgent: null });
      // A principal without a source (the hub itself, tests) writes lines without one.
      await store().createItem(newItem("i3"), T0 + 7000);
      await store().claim("i3", alice, 1000, T0 + 7001);
      expect((await store().auditOf("i3")).map((e) => e.source)).toEqual([undefined, undefined]);
    });

    it("exports one tenant's lines in write order with their item's thread, run and queue; refusals with their reason", async () => {
      await history();
      const lines = await all();
      expect(lines.map((l) => [l.interruptId, l.kind])).toEqual([["i1", "requested"], ["i2", "requested"], ["i1", "claimed"], ["i1", "rejected"], ["i1", "answered"], ["i2", "answered"]]);
      expect(lines.every((l) => l.tenant === "acme")).toBe(true);
      const seqs = lines.map((l) => l.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(lines[3]).toMatchObject({ kind: "rejected", reason: "permission_denied", by: { sub: "bob" }, threadId: "t1", runId: "r1", queue: "ops", at: iso(T0 + 3000), detail: { repeated: 2, last_at: iso(T0 + 3100), message: expect.stringContaining("not a candidate") }, source: { transport: "http" } });
      expect(lines[4]).toMatchObject({ kind: "answered", by: { sub: "alice" }, detail: { value: "yes" }, source: { transport: "ws", remote: "10.0.0.7" } });
      expect((await store().exportAudit({ tenant: "globex", after: 0, limit: 10 })).map((l) => [l.interruptId, l.kind])).toEqual([["g1", "requested"], ["g1", "answered"]]);
      expect(await store().exportAudit({ tenant: "nobody", after: 0, limit: 10 })).toEqual([]);
    });

    it("filters by time (from inclusive, to exclusive), thread, queue and person, and pages by seq", async () => {
      await history();
      const kinds = async (over: Partial<AuditExportFilter>) => (await all(over)).map((l) => `${l.interruptId}:${l.kind}`);
      expect(await kinds({ from: iso(T0 + 2000), to: iso(T0 + 4000) })).toEqual(["i1:claimed", "i1:rejected"]);
      expect(await kinds({ from: iso(T0 + 4000) })).toEqual(["i1:answered", "i2:answered"]);
      expect(await kinds({ threadId: "t2" })).toEqual(["i2:requested", "i2:answered"]);
      expect(await kinds({ queue: "ops" })).toEqual(["i1:requested", "i1:claimed", "i1:rejected", "i1:answered"]);
      expect(await kinds({ person: "bob" })).toEqual(["i1:rejected", "i2:answered"]);
      expect(await kinds({ person: "bob", queue: "sales" })).toEqual(["i2:answered"]);
      expect(await kinds({ threadId: "tg" })).toEqual([]);
      const first = await all({ limit: 4 });
      const rest = await all({ after: first.at(-1)!.seq, limit: 4 });
      expect([...first, ...rest].map((l) => l.seq)).toEqual((await all()).map((l) => l.seq));
      expect(rest).toHaveLength(2);
    });
  });
}
