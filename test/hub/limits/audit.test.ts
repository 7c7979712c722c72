/**
 * Issue 14, item 7, against a real hub process on a SQLite data dir: another
 * tenant cannot grow a tenant's audit trail or database — its refused REST
 * answers are not audited there, REST is rate limited per caller like the
 * sockets, repeated refusals of one principal are one audit line, and
 * `GET /reviews/:id` pages the trail.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_FILE_NAME } from "../../../hub/config.ts";
import { mintToken } from "../../../hub/auth/index.ts";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket, interruptIdsOf, isRootLifecycle, tempDataDir } from "../../support/hub.ts";

const SECRET = "limits-test-secret-0123456789abcdef0123456789";
// Low enough that this test's requests pass it on a busy machine too.
const REST = { restRequestsPerSecond: 20, restBurst: 50 };
let hub: HubProcess;
let dataDir: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

beforeAll(async () => {
  dataDir = tempDataDir();
  hub = await HubProcess.start({ entry: "child", env: { SWITCHBOARD_JWT_SECRET: SECRET, SWITCHBOARD_DATA_DIR: dataDir }, config: { limits: REST } });
});
afterAll(async () => {
  await hub.stop();
});

/** Bytes of the SQLite file and its write-ahead log. */
function databaseBytes(): number {
  const file = join(dataDir, DB_FILE_NAME);
  const size = (path: string): number => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  return size(file) + size(`${file}-wal`);
}

describe("audit amplification", () => {
  it("tenant B's refused answers neither reach tenant A's trail nor grow its database; repeats coalesce; the trail is paged", { timeout: 120_000 }, async () => {
    const ann = await mintToken({ sub: "ann", tenant: "a", roles: ["operator", "reviewer", "observer"] }, SECRET);
    const bea = await mintToken({ sub: "bea", tenant: "b", roles: ["reviewer", "observer"] }, SECRET);
    const socket = await TestSocket.open(`${hub.wsUrl}/threads/t-audit/stream/events`, { headers: { authorization: `Bearer ${ann}` } });
    await socket.subscribe({ channels: ["lifecycle", "input"] });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "audit" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [id] = interruptIdsOf(socket.events);
    const before = databaseBytes();

    // Tenant B: 1,000 answers of 10 KB each, 20 at a time.
    const body = JSON.stringify({ response: { note: "b".repeat(10_000) } });
    const statuses = new Map<number, number>();
    let retryAfter: string | null = null;
    for (let i = 0; i < 50; i++) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await fetch(`${hub.url}/reviews/${id}/answer`, { method: "POST", headers: auth(bea), body });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 429) {
            retryAfter ??= res.headers.get("retry-after");
            expect(await res.json()).toMatchObject({ error: "rate_limited", details: { retry_after_ms: expect.any(Number) } });
          } else {
            expect(res.status).toBe(403);
            await res.body?.cancel();
          }
        }),
      );
    }
    // REST is rate limited per caller: past the burst, 429 with Retry-After.
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(403) ?? 0).toBeGreaterThanOrEqual(REST.restBurst);
    expect(retryAfter).toMatch(/^\d+$/);

    // Tenant A's own run starter may not approve (self-approval is off): 40 refusals (its own bucket), one line.
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${hub.url}/reviews/${id}/answer`, { method: "POST", headers: auth(ann), body });
      expect(res.status).toBe(403);
      await res.body?.cancel();
    }
    const review = (await (await fetch(`${hub.url}/reviews/${id}`, { headers: auth(ann) })).json()) as { audit: Array<{ kind: string; by?: { sub: string }; detail?: Record<string, unknown> }>; audit_next_offset: number | null };
    expect(review.audit.map((e) => [e.kind, e.by?.sub])).toEqual([
      ["requested", undefined],
      ["rejected", "ann"],
    ]);
    expect(review.audit[1]?.detail).toMatchObject({ repeated: 40, last_at: expect.any(String) });
    expect(review.audit_next_offset).toBeNull();
    // Bounded growth: far below what 1,040 stored 10 KB refusals would take.
    expect(databaseBytes() - before).toBeLessThan(1024 * 1024);

    // Paged: one line at a time, with where the next page starts.
    const page = (await (await fetch(`${hub.url}/reviews/${id}?audit_limit=1`, { headers: auth(ann) })).json()) as { audit: unknown[]; audit_next_offset: number | null };
    expect(page.audit).toHaveLength(1);
    expect(page.audit_next_offset).toBe(1);
    const next = (await (await fetch(`${hub.url}/reviews/${id}?audit_limit=1&audit_offset=1`, { headers: auth(ann) })).json()) as { audit: Array<{ kind: string }>; audit_next_offset: number | null };
    expect(next.audit.map((e) => e.kind)).toEqual(["rejected"]);
    expect(next.audit_next_offset).toBeNull();
    expect((await fetch(`${hub.url}/reviews/${id}?audit_limit=5000`, { headers: auth(ann) })).status).toBe(400);
  });
});
