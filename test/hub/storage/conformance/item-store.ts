/**
 * The item store conformance suite (the LangGraph API's store port): every
 * ItemStore backend runs these from a few-line test file. Put/get/delete,
 * replace keeps createdAt, prefix search newest first with filter and
 * paging, namespace listing with prefix/suffix/maxDepth, tenants apart,
 * JSON fidelity, and the argument checks.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreArgumentError, type ItemStore } from "../../../../hub/store/index.ts";

export interface ItemStoreFixture {
  store: ItemStore;
  dispose(): Promise<void>;
}

export function describeItemStoreConformance(name: string, make: () => Promise<ItemStoreFixture>): void {
  describe(`item store conformance: ${name}`, () => {
    let fixture: ItemStoreFixture;
    const store = (): ItemStore => fixture.store;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("puts, gets, replaces (keeping createdAt) and deletes an item", async () => {
      const put = await store().put("acme", ["users", "u1"], "prefs", { theme: "dark", n: 1 });
      expect(put).toEqual({ namespace: ["users", "u1"], key: "prefs", value: { theme: "dark", n: 1 }, createdAt: expect.any(String), updatedAt: put.createdAt });
      expect(await store().get("acme", ["users", "u1"], "prefs")).toEqual(put);
      const replaced = await store().put("acme", ["users", "u1"], "prefs", { theme: "light" });
      expect(replaced.value).toEqual({ theme: "light" });
      expect(replaced.createdAt).toBe(put.createdAt);
      expect(replaced.updatedAt > put.updatedAt).toBe(true);
      expect(await store().get("acme", ["users"], "prefs")).toBeUndefined();
      expect(await store().delete("acme", ["users", "u1"], "prefs")).toBe(true);
      expect(await store().delete("acme", ["users", "u1"], "prefs")).toBe(false);
      expect(await store().get("acme", ["users", "u1"], "prefs")).toBeUndefined();
    });

    it("keeps tenants apart", async () => {
      await store().put("acme", ["docs"], "k", { who: "acme" });
      await store().put("globex", ["docs"], "k", { who: "globex" });
      expect((await store().get("acme", ["docs"], "k"))?.value).toEqual({ who: "acme" });
      expect((await store().search("globex", [])).map((i) => i.value)).toEqual([{ who: "globex" }]);
      expect(await store().listNamespaces("initech")).toEqual([]);
      await store().delete("globex", ["docs"], "k");
      expect(await store().get("acme", ["docs"], "k")).toBeDefined();
    });

    it("stores JSON exactly: nested values, unicode, \\u0000, numbers", async () => {
      const value = { nested: { list: [1, 2.5, -3e10, null, true], text: "zé 中文 \u0000 end" }, empty: {} };
      await store().put("acme", ["j"], "k", value);
      expect((await store().get("acme", ["j"], "k"))?.value).toEqual(value);
    });

    it("searches by namespace prefix (labels, not characters), newest first, with filter and paging", async () => {
      await store().put("acme", ["a"], "1", { kind: "x", n: 1 });
      await store().put("acme", ["a", "b"], "2", { kind: "y", n: 2 });
      await store().put("acme", ["a", "b", "c"], "3", { kind: "x", n: 3, tags: ["t"] });
      await store().put("acme", ["ab"], "4", { kind: "x", n: 4 });
      await store().put("acme", ["a_"], "5", { kind: "x", n: 5 });
      await store().put("acme", ["a%"], "6", { kind: "x", n: 6 });
      const keys = async (prefix: string[], options = {}) => (await store().search("acme", prefix, options)).map((i) => i.key);
      expect(await keys(["a"])).toEqual(["3", "2", "1"]);
      expect(await keys(["a", "b"])).toEqual(["3", "2"]);
      expect(await keys(["a_"])).toEqual(["5"]);
      expect(await keys(["a%"])).toEqual(["6"]);
      expect(await keys([])).toEqual(["6", "5", "4", "3", "2", "1"]);
      expect(await keys(["a"], { filter: { kind: "x" } })).toEqual(["3", "1"]);
      expect(await keys(["a"], { filter: { tags: ["t"] } })).toEqual(["3"]);
      expect(await keys(["a"], { filter: { kind: "x", n: 1 } })).toEqual(["1"]);
      expect(await keys(["a"], { filter: { missing: null } })).toEqual([]);
      expect(await keys([], { limit: 2 })).toEqual(["6", "5"]);
      expect(await keys([], { limit: 2, offset: 2 })).toEqual(["4", "3"]);
      expect(await keys([], { filter: { kind: "x" }, limit: 1, offset: 1 })).toEqual(["5"]);
      // An update moves the item to the front.
      await store().put("acme", ["a"], "1", { kind: "x", n: 10 });
      expect(await keys(["a"])).toEqual(["1", "3", "2"]);
    });

    it("lists namespaces: prefix, suffix, max depth, paging", async () => {
      for (const ns of [["users", "u1", "prefs"], ["users", "u2", "prefs"], ["users", "u2", "notes"], ["docs"], ["docs", "drafts"]]) await store().put("acme", ns, "k", {});
      expect(await store().listNamespaces("acme")).toEqual([["docs"], ["docs", "drafts"], ["users", "u1", "prefs"], ["users", "u2", "notes"], ["users", "u2", "prefs"]]);
      expect(await store().listNamespaces("acme", { prefix: ["users"] })).toEqual([["users", "u1", "prefs"], ["users", "u2", "notes"], ["users", "u2", "prefs"]]);
      expect(await store().listNamespaces("acme", { suffix: ["prefs"] })).toEqual([["users", "u1", "prefs"], ["users", "u2", "prefs"]]);
      expect(await store().listNamespaces("acme", { maxDepth: 2 })).toEqual([["docs"], ["docs", "drafts"], ["users", "u1"], ["users", "u2"]]);
      expect(await store().listNamespaces("acme", { prefix: ["users"], maxDepth: 1 })).toEqual([["users"]]);
      expect(await store().listNamespaces("acme", { limit: 2, offset: 1 })).toEqual([["docs", "drafts"], ["users", "u1", "prefs"]]);
    });

    it("refuses bad namespaces, keys, values and pages with StoreArgumentError", async () => {
      const refused = async (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(StoreArgumentError);
      await refused(store().put("acme", [], "k", {}));
      await refused(store().put("acme", ["a.b"], "k", {}));
      await refused(store().put("acme", [""], "k", {}));
      await refused(store().put("acme", ["a"], "", {}));
      await refused(store().put("acme", ["a"], "x".repeat(1025), {}));
      await refused(store().put("acme", ["a"], "k", [] as unknown as Record<string, unknown>));
      await refused(store().put("acme", Array.from({ length: 17 }, (_, i) => `l${i}`), "k", {}));
      await refused(store().search("acme", [], { limit: -1 }));
      await refused(store().search("acme", [], { limit: 1001 }));
      await refused(store().listNamespaces("acme", { maxDepth: 0 }));
      expect(await store().search("acme", [])).toEqual([]);
    });
  });
}
