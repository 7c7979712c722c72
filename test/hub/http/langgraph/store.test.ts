/**
 * `client.store.*` of the official SDK against a real hub (JWT, x-api-key),
 * on memory and SQLite: put, get, search, list namespaces, delete; per
 * tenant; writing needs the operator role; bad input is a 400 and stores nothing.
 */
import { describe, expect, it } from "vitest";
import { HUB_STORAGES } from "../../../support/hub.ts";
import { OPERATOR, SECRET, lgHub, sdk } from "./helpers.ts";

const statusOf = async (p: Promise<unknown>): Promise<number | undefined> => p.then(() => 200, (e: { status?: number }) => e.status);

describe.each(HUB_STORAGES)("store on $name", ({ config }) => {
  it("putItem, getItem, searchItems, listNamespaces, deleteItem — each tenant its own", async () => {
    const hub = await lgHub({ ...config(), jwtSecret: SECRET });
    const ann = await sdk(hub, "ann", OPERATOR, "acme");
    const gus = await sdk(hub, "gus", OPERATOR, "globex");
    const watcher = await sdk(hub, "wes", ["observer"], "acme");

    await ann.store.putItem(["users", "ann", "prefs"], "theme", { color: "dark" });
    await ann.store.putItem(["users", "ann", "notes"], "n1", { text: "first", tag: "work" });
    await ann.store.putItem(["users", "bob", "notes"], "n2", { text: "second", tag: "home" });
    await gus.store.putItem(["users", "gus", "prefs"], "theme", { color: "green" });

    const item = await ann.store.getItem(["users", "ann", "prefs"], "theme");
    expect(item).toMatchObject({ namespace: ["users", "ann", "prefs"], key: "theme", value: { color: "dark" }, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(await ann.store.getItem(["users", "ann", "prefs"], "missing")).toBeNull();
    // Another tenant's item does not exist for ann.
    expect(await ann.store.getItem(["users", "gus", "prefs"], "theme")).toBeNull();

    const notes = await ann.store.searchItems(["users"], { filter: { tag: "work" } });
    expect(notes.items.map((i) => i.key)).toEqual(["n1"]);
    expect((await ann.store.searchItems(["users"], { limit: 2 })).items.map((i) => i.key)).toEqual(["n2", "n1"]);
    expect((await gus.store.searchItems([])).items.map((i) => i.value)).toEqual([{ color: "green" }]);

    expect(await ann.store.listNamespaces()).toEqual({ namespaces: [["users", "ann", "notes"], ["users", "ann", "prefs"], ["users", "bob", "notes"]] });
    expect(await ann.store.listNamespaces({ suffix: ["notes"], maxDepth: 2 })).toEqual({ namespaces: [["users", "ann"], ["users", "bob"]] });

    // An observer reads but cannot write.
    expect((await watcher.store.searchItems(["users", "ann"])).items).toHaveLength(2);
    expect(await statusOf(watcher.store.putItem(["users"], "x", { no: true }))).toBe(403);
    expect(await statusOf(watcher.store.deleteItem(["users", "ann", "prefs"], "theme"))).toBe(403);

    await ann.store.deleteItem(["users", "ann", "prefs"], "theme");
    expect(await ann.store.getItem(["users", "ann", "prefs"], "theme")).toBeNull();
    expect(await gus.store.getItem(["users", "gus", "prefs"], "theme")).not.toBeNull();
  });

  it("bad input is a 400 with the reason; semantic search and TTLs are refused (501)", async () => {
    const hub = await lgHub(config());
    const client = await sdk(hub);
    const put = (body: unknown) => fetch(`${hub.url}/store/items`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await put({ namespace: [], key: "k", value: {} })).status).toBe(400);
    const dotted = await put({ namespace: ["a.b"], key: "k", value: {} });
    expect(dotted.status).toBe(400);
    expect(await dotted.json()).toMatchObject({ error: "invalid_argument", detail: expect.stringContaining('"."') });
    expect((await put({ namespace: ["a"], key: "k", value: [1] })).status).toBe(400);
    expect((await put({ namespace: ["a"], key: "x".repeat(2000), value: {} })).status).toBe(400);
    expect((await put({ namespace: ["a"], key: "k", value: { big: "x".repeat(2_000_000) } })).status).toBe(413);
    expect((await put({ namespace: ["a"], key: "k", value: {}, ttl: 5 })).status).toBe(501);
    expect(await statusOf(client.store.searchItems(["a"], { query: "similar to this" }))).toBe(501);
    expect(await statusOf(client.store.searchItems(["a"], { limit: 5000 }))).toBe(400);
    expect((await client.store.searchItems([])).items).toEqual([]);
  });
});
