/**
 * Answer links over REST, on a real hub: minted by an admin for a candidate
 * (not for someone else, not by a reviewer), opened and used once — the
 * second use, from anywhere, is refused as used; an expired, tampered or
 * other item's link is refused and says why; the answer goes through the
 * item's routing and is audited as coming from a link; a webhook carries a
 * link per candidate user, and that link answers.
 */
import { describe, expect, it, vi } from "vitest";
import { newSecret } from "../../../hub/review/webhooks/sign.ts";
import { authHeaders, reviewHub, startAndWait, WAIT } from "./e2e/helpers.ts";
import { startReceiver } from "./webhooks/receiver.ts";

type RunningHub = Awaited<ReturnType<typeof reviewHub>>;

async function mint(hub: RunningHub, id: string, body: unknown, roles: readonly string[] = ["admin"]): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${hub.url}/reviews/${id}/links`, { method: "POST", headers: { ...(await authHeaders("ada", roles)), "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/** The link's page calls these without any other credential. */
async function open(hub: RunningHub, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${hub.url}${path}`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function use(hub: RunningHub, path: string, response: unknown, extra: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${hub.url}${path}/answer`, { method: "POST", headers: { "content-type": "application/json", "user-agent": "mail-client/2" }, body: JSON.stringify({ response, ...extra }) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const apiPath = (minted: Record<string, unknown>): string => `/links/${String(minted["interrupt_id"])}/${String(minted["token"])}`;

describe("answer links", () => {
  it("minted for a candidate, opened, used once; the second use is refused as used; audited as a link", async () => {
    const hub = await reviewHub({ answerLinks: { baseUrl: "https://inbox.example.com/" } });
    const { ids: [id] } = await startAndWait(hub, "ln-1", "gate", { review: { users: ["rita"] } });

    expect((await mint(hub, id!, { sub: "bob" })).body).toMatchObject({ error: "invalid_argument", message: expect.stringContaining("not a candidate") });
    expect((await mint(hub, id!, { sub: "rita" }, ["reviewer"])).status).toBe(403);
    expect((await mint(hub, "nope", { sub: "rita" })).status).toBe(404);
    const minted = await mint(hub, id!, { sub: "rita", name: "Rita" });
    expect(minted.status).toBe(200);
    expect(minted.body).toMatchObject({ interrupt_id: id, sub: "rita", expires_at: expect.any(Number), token: expect.stringMatching(/^sbl1\./) });
    expect(minted.body["url"]).toBe(`https://inbox.example.com${String(minted.body["path"])}`);
    expect(minted.body["path"]).toBe(`/#/link/${id}/${String(minted.body["token"])}`);

    const page = await open(hub, apiPath(minted.body));
    expect(page).toMatchObject({ status: 200, body: { link: { sub: "rita", name: "Rita" }, item: { interrupt_id: id, status: "open", payload: { question: "ok?" } } } });
    // Opening twice is fine: only answering uses it.
    expect((await open(hub, apiPath(minted.body))).status).toBe(200);

    const first = await use(hub, apiPath(minted.body), "approved by mail");
    expect(first).toMatchObject({ status: 200, body: { interrupt_id: id, answered_by: { sub: "rita", name: "Rita" }, resumed: true } });
    const second = await use(hub, apiPath(minted.body), "again");
    expect(second).toMatchObject({ status: 403, body: { error: "permission_denied", details: { link: "used", used_at: expect.any(Number) } } });
    expect(String(second.body["message"])).toMatch(/^this link was already used/);
    expect((await open(hub, apiPath(minted.body))).body).toMatchObject({ details: { link: "used" } });

    const exported = await fetch(`${hub.url}/audit/export?thread_id=ln-1`, { headers: await authHeaders("ada", ["admin"]) });
    const lines = (await exported.text()).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l["kind"] === "answered")).toMatchObject({ by: { sub: "rita" }, source: { transport: "link", user_agent: "mail-client/2" } });
  });

  it("an answer bound to a digest the item no longer has is refused as stale and does not spend the link; the right digest answers once", async () => {
    const hub = await reviewHub();
    const { ids: [id] } = await startAndWait(hub, "ln-stale", "gate", { review: { users: ["rita"] } });
    const minted = (await mint(hub, id!, { sub: "rita" })).body;
    const shown = (await open(hub, apiPath(minted))).body["item"] as Record<string, unknown>;
    expect(shown["payload_digest"]).toMatch(/^[0-9a-f]{64}$/);

    const stale = await use(hub, apiPath(minted), "yes", { payload_digest: "0".repeat(64) });
    expect(stale).toMatchObject({ status: 409, body: { error: "stale_payload" } });
    const malformed = await use(hub, apiPath(minted), "yes", { payload_digest: "not-a-digest" });
    expect(malformed).toMatchObject({ status: 400, body: { error: "invalid_argument" } });

    expect(await use(hub, apiPath(minted), "yes", { payload_digest: shown["payload_digest"] })).toMatchObject({ status: 200, body: { answered_by: { sub: "rita" }, resumed: true } });
    expect((await use(hub, apiPath(minted), "again")).body).toMatchObject({ details: { link: "used" } });
  });

  it("refuses an expired link, a tampered one and another item's, each saying so; concurrent uses: one wins", async () => {
    const hub = await reviewHub();
    const { ids: [a] } = await startAndWait(hub, "ln-a", "gate", { review: { users: ["rita"] } });
    const { ids: [b] } = await startAndWait(hub, "ln-b", "gate", { review: { users: ["rita"] } });

    const short = (await mint(hub, a!, { sub: "rita", ttl: 1 })).body;
    await vi.waitFor(async () => expect((await open(hub, apiPath(short))).body).toMatchObject({ error: "permission_denied", details: { link: "expired" } }), WAIT);
    expect(String((await use(hub, apiPath(short), "x")).body["message"])).toMatch(/^this link expired at /);

    const good = (await mint(hub, a!, { sub: "rita" })).body;
    const token = String(good["token"]);
    const [p, payload, sig] = token.split(".");
    const forged = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const tampered = `${p}.${Buffer.from(JSON.stringify({ ...forged, s: "mallory" })).toString("base64url")}.${sig}`;
    const refusedTamper = await use(hub, `/links/${a}/${tampered}`, "x");
    expect(refusedTamper).toMatchObject({ status: 403, body: { details: { link: "invalid" } } });
    expect(String(refusedTamper.body["message"])).toMatch(/not valid/);
    expect((await use(hub, `/links/${a}/garbage`, "x")).body).toMatchObject({ details: { link: "invalid" } });
    expect((await use(hub, `/links/${b}/${token}`, "x")).body).toMatchObject({ details: { link: "other_item" }, message: "this link is for another item" });

    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => use(hub, apiPath(good), `answer ${i}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403 && r.body["details"] !== undefined && (r.body["details"] as Record<string, unknown>)["link"] === "used")).toHaveLength(7);
  });

  it("input.requested webhooks carry a link per candidate user when the endpoint asks; the link answers", async () => {
    const secret = newSecret();
    const receiver = await startReceiver(secret);
    const hub = await reviewHub({ webhooks: { endpoints: [{ id: "mail", url: receiver.url, secret, tenant: "acme", events: ["input.requested"], answerLinks: true }] } });
    const { ids: [id] } = await startAndWait(hub, "ln-wh", "gate", { review: { users: ["rita", "sam"] } });
    await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
    const links = receiver.accepted[0]?.data["links"] as Array<Record<string, unknown>>;
    expect(links.map((l) => l["sub"])).toEqual(["rita", "sam"]);
    expect(links[0]).toMatchObject({ interrupt_id: id, path: expect.stringMatching(/^\/#\/link\//), token: expect.any(String) });
    expect(await use(hub, apiPath(links[1]!), "sam approves")).toMatchObject({ status: 200, body: { answered_by: { sub: "sam" } } });
    expect(await use(hub, apiPath(links[0]!), "rita too late")).toMatchObject({ status: 409, body: { error: "already_answered" } });
  });
});
