/**
 * GET /audit/export end to end: a real hub, a review answered over a
 * WebSocket, refused over REST and claimed over POST /commands; the export
 * as JSON lines and as CSV is parsed back and shows who, what, when and from
 * where, refusals with their reason, one tenant only, with its filters and
 * paging; only `admin` or `auditor` may read it.
 */
import { describe, expect, it } from "vitest";
import { parseCsv } from "../../support/csv.ts";
import { REVIEWER, authHeaders, ok, openAs, reviewHub, startAndWait } from "./e2e/helpers.ts";
import { TestSocket, interruptIdsOf, isRootLifecycle, wsUrl } from "../../support/hub.ts";

type RunningHub = Awaited<ReturnType<typeof reviewHub>>;

async function exportOf(hub: RunningHub, query: string, roles: readonly string[] = ["auditor"], tenant = "acme"): Promise<Response> {
  return fetch(`${hub.url}/audit/export?${query}`, { headers: await authHeaders("audrey", roles, tenant) });
}

const jsonLines = (text: string): Array<Record<string, unknown>> => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);

describe("GET /audit/export", () => {
  it("exports who, what, when and from where as JSON lines and CSV; refusals with their reason; one tenant; filters and pages", async () => {
    const hub = await reviewHub();
    const { ids: [id] } = await startAndWait(hub, "ax-1", "gate", { review: { queue: "ops", users: ["rita"] } });
    await startAndWait(hub, "ax-2", "gate", { review: { queue: "sales" } }, { expected: 1 });
    // bob is not a candidate: refused over REST (with a user agent that needs CSV quoting).
    const refused = await fetch(`${hub.url}/reviews/${id}/answer`, {
      method: "POST",
      headers: { ...(await authHeaders("bob", REVIEWER)), "content-type": "application/json", "user-agent": 'chat-bot/1.0 ("ops", beta)' },
      body: JSON.stringify({ response: "no" }),
    });
    expect(refused.status).toBe(403);
    // rita claims over POST /commands, then answers over a WebSocket.
    const claim = await fetch(`${hub.url}/threads/ax-1/commands`, { method: "POST", headers: { ...(await authHeaders("rita", REVIEWER)), "content-type": "application/json" }, body: JSON.stringify({ id: 1, method: "input.claim", params: { interrupt_id: id } }) });
    expect(await claim.json()).toMatchObject({ type: "success" });
    const rita = await TestSocket.open(wsUrl(hub, "/ws"), { headers: { ...(await authHeaders("rita", REVIEWER)), "user-agent": "=cmd|' /C calc'!A0" } });
    ok(await rita.request("input.respond", { namespace: [], interrupt_id: id, response: { approved: true, note: 'line one\nline "two"' } }, { thread_id: "ax-1" }));
    // Another tenant's review, refused and answered there: never in acme's export.
    const gOperator = await openAs(hub, "gus", ["observer", "operator"], "globex");
    await gOperator.subscribe({ channels: ["lifecycle", "input"] }, { thread_id: "ax-globex" });
    ok(await gOperator.request("run.start", { assistant_id: "gate", input: {} }, { thread_id: "ax-globex" }));
    await gOperator.waitForEvent(isRootLifecycle("interrupted"));
    const [gid] = interruptIdsOf(gOperator.events);
    const gReviewer = await openAs(hub, "gina", REVIEWER, "globex");
    ok(await gReviewer.request("input.respond", { namespace: [], interrupt_id: gid, response: "ok" }, { thread_id: "ax-globex" }));

    const response = await exportOf(hub, "format=jsonl&thread_id=ax-1");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const lines = jsonLines(await response.text());
    expect(lines.map((l) => l["kind"])).toEqual(["requested", "rejected", "claimed", "answered"]);
    expect(lines[1]).toMatchObject({ tenant: "acme", thread_id: "ax-1", queue: "ops", interrupt_id: id, by: { sub: "bob" }, reason: "permission_denied", source: { transport: "http", remote: expect.stringMatching(/127\.0\.0\.1/), user_agent: 'chat-bot/1.0 ("ops", beta)' } });
    expect(lines[2]).toMatchObject({ by: { sub: "rita" }, source: { transport: "http" } });
    expect(lines[3]).toMatchObject({ by: { sub: "rita" }, detail: { value: { approved: true } }, source: { transport: "ws", user_agent: "=cmd|' /C calc'!A0" } });
    expect(lines[0]).toMatchObject({ kind: "requested", by: null, source: null });
    expect(typeof lines[0]?.["seq"]).toBe("number");
    expect(Date.parse(String(lines[3]?.["at"]))).toBeGreaterThan(0);

    const csv = await exportOf(hub, "format=csv&thread_id=ax-1");
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = parseCsv(await csv.text());
    expect(rows.map((r) => r["kind"])).toEqual(["requested", "rejected", "claimed", "answered"]);
    expect(rows[1]).toMatchObject({ by_sub: "bob", reason: "permission_denied", transport: "http", user_agent: 'chat-bot/1.0 ("ops", beta)', queue: "ops", tenant: "acme" });
    expect(JSON.parse(rows[3]?.["detail"] ?? "null")).toEqual({ value: { approved: true, note: 'line one\nline "two"' } });
    // A text a spreadsheet would run as a formula is defused with a leading apostrophe.
    expect(rows[3]?.["user_agent"]).toBe("'=cmd|' /C calc'!A0");
    expect(rows.map((r) => Number(r["seq"]))).toEqual(lines.map((l) => l["seq"]));

    // Filters: queue, person, time; paging with after + limit.
    expect(jsonLines(await (await exportOf(hub, "queue=sales")).text()).map((l) => l["thread_id"])).toEqual(["ax-2"]);
    expect(jsonLines(await (await exportOf(hub, "person=bob")).text()).map((l) => l["kind"])).toEqual(["rejected"]);
    const answeredAt = String(lines[3]?.["at"]);
    expect(jsonLines(await (await exportOf(hub, `thread_id=ax-1&from=${encodeURIComponent(answeredAt)}`)).text()).map((l) => l["kind"])).toEqual(["answered"]);
    expect(jsonLines(await (await exportOf(hub, `thread_id=ax-1&to=${Date.parse(answeredAt)}`)).text()).map((l) => l["kind"])).toEqual(["requested", "rejected", "claimed"]);
    const page1 = jsonLines(await (await exportOf(hub, "thread_id=ax-1&limit=3")).text());
    const page2 = jsonLines(await (await exportOf(hub, `thread_id=ax-1&limit=3&after=${String(page1.at(-1)?.["seq"])}`)).text());
    expect([...page1, ...page2].map((l) => l["seq"])).toEqual(lines.map((l) => l["seq"]));
    // An empty CSV still has its header.
    expect(await (await exportOf(hub, "format=csv&thread_id=none")).text()).toBe("seq,at,tenant,thread_id,run_id,queue,interrupt_id,kind,by_sub,by_name,reason,detail,transport,remote,user_agent\r\n");

    // Tenants apart; roles; bad parameters.
    const globex = jsonLines(await (await exportOf(hub, "", ["admin"], "globex")).text());
    expect(globex.map((l) => [l["thread_id"], l["kind"]])).toEqual([["ax-globex", "requested"], ["ax-globex", "answered"]]);
    const everything = jsonLines(await (await exportOf(hub, "", ["admin"])).text());
    expect(everything.length).toBeGreaterThan(4);
    expect(everything.every((l) => l["tenant"] === "acme" && l["thread_id"] !== "ax-globex")).toBe(true);
    const denied = await exportOf(hub, "", ["reviewer", "operator", "observer"]);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: "permission_denied" });
    for (const bad of ["format=xml", "from=yesterday", "limit=0", "limit=100001", "after=-1"]) {
      const r = await exportOf(hub, bad);
      expect(r.status, bad).toBe(400);
      expect(await r.json()).toMatchObject({ error: "invalid_argument" });
    }
  });

  it("streams a big export page by page, every line once", async () => {
    const hub = await reviewHub();
    const { ids: [id] } = await startAndWait(hub, "ax-big", "gate", { review: { users: ["rita"] } });
    // 1,200 refusals from 1,200 people: one line each (repeats of one person would coalesce).
    for (let i = 0; i < 1200; i++) {
      const store = (await import("../../../hub/hub.ts")).internalsOf(hub).reviews.service;
      await store.answer({ sub: `p${i}`, name: `P${i}`, tenant: "acme", roles: ["reviewer"] }, id!, "x");
    }
    const lines = jsonLines(await (await exportOf(hub, "thread_id=ax-big")).text());
    expect(lines).toHaveLength(1201);
    expect(new Set(lines.map((l) => l["seq"])).size).toBe(1201);
    expect(jsonLines(await (await exportOf(hub, "thread_id=ax-big&limit=700")).text())).toHaveLength(700);
  });
});
