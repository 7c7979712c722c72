/**
 * The answer-link use conformance suite: every LinkUses backend marks a
 * nonce used once — a second use (from another handle: another connection
 * or node, when the backend has one) gets the first use back; a released
 * use can be made again.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LinkUses } from "../../../../hub/review/links/uses.ts";

export interface LinkUsesFixture {
  uses: LinkUses;
  other?: () => Promise<LinkUses>;
  dispose(): Promise<void>;
}

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const use = (nonce: string) => ({ nonce, tenant: "acme", interruptId: "i1", sub: "rita" });

export function describeLinkUsesConformance(name: string, make: () => Promise<LinkUsesFixture>, shared = true): void {
  describe(`answer link uses conformance: ${name}`, () => {
    let fixture: LinkUsesFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("uses a nonce once; the second use gets the first back; release gives it back", async () => {
      const { uses } = fixture;
      expect(await uses.find("n1")).toBeUndefined();
      expect(await uses.use(use("n1"), T0)).toEqual({ ok: true });
      const again = await uses.use({ ...use("n1"), sub: "other" }, T0 + 5);
      expect(again).toEqual({ ok: false, first: { ...use("n1"), usedAt: new Date(T0).toISOString() } });
      expect(await uses.find("n1")).toEqual({ ...use("n1"), usedAt: new Date(T0).toISOString() });
      expect(await uses.use(use("n2"), T0)).toEqual({ ok: true });
      await uses.release("n1");
      expect(await uses.find("n1")).toBeUndefined();
      expect(await uses.use(use("n1"), T0 + 10)).toEqual({ ok: true });
    });

    it("prunes the uses made before the cutoff, oldest first, a batch at a time", async () => {
      const { uses } = fixture;
      for (const [nonce, at] of [["a", T0 + 2], ["b", T0], ["c", T0 + 1], ["d", T0 + 1_000]] as const) await uses.use(use(nonce), at);
      expect(await uses.prune(T0 + 500, 2)).toBe(2);
      expect([await uses.find("b"), await uses.find("c")]).toEqual([undefined, undefined]);
      expect(await uses.find("a")).toBeDefined();
      expect(await uses.prune(T0 + 500, 10)).toBe(1);
      expect(await uses.prune(T0 + 500, 10)).toBe(0);
      expect(await uses.find("d")).toEqual({ ...use("d"), usedAt: new Date(T0 + 1_000).toISOString() });
      // A pruned nonce is forgotten: were its link still valid it could be used again, hence the retention of the longest link.
      expect(await uses.use(use("b"), T0 + 2_000)).toEqual({ ok: true });
    });

    it.runIf(shared)("two handles racing on one nonce: exactly one use wins", async () => {
      if (!fixture.other) throw new Error("a shared backend's fixture needs other()");
      const other = await fixture.other();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? fixture.uses : other).use({ ...use("race"), sub: `s${i}` }, T0)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    });
  });
}
