/**
 * The threads list's pure merge (client/thread-list.ts): a change replaces
 * the thread's record unless the list already holds a newer one, the list
 * stays newest first, and it never grows past its limit.
 */
import { describe, expect, it } from "vitest";
import { upsertThread } from "../../client/index.ts";
import type { ThreadRecordJson } from "../../hub/protocol/index.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const thread = (id: string, second: number, status: ThreadRecordJson["status"] = "idle"): ThreadRecordJson => ({
  thread_id: id,
  assistant_id: "review",
  status,
  metadata: {},
  created_at: at(0),
  updated_at: at(second),
});

describe("upsertThread", () => {
  it("keeps the list newest first and replaces a thread's record with a newer one", () => {
    let list = upsertThread([], thread("a", 1), 10);
    list = upsertThread(list, thread("b", 2), 10);
    expect(list.map((t) => t.thread_id)).toEqual(["b", "a"]);
    list = upsertThread(list, thread("a", 3, "busy"), 10);
    expect(list.map((t) => [t.thread_id, t.status])).toEqual([["a", "busy"], ["b", "idle"]]);
  });

  it("ignores a change older than (or as old as) what it shows, and returns the same list", () => {
    const list = upsertThread(upsertThread([], thread("a", 5, "interrupted"), 10), thread("b", 6), 10);
    expect(upsertThread(list, thread("a", 4, "busy"), 10)).toBe(list);
    expect(upsertThread(list, thread("a", 5, "busy"), 10)).toBe(list);
  });

  it("drops the least recently updated past the limit", () => {
    let list: readonly ThreadRecordJson[] = [];
    for (let i = 0; i < 5; i++) list = upsertThread(list, thread(`t${i}`, i), 3);
    expect(list.map((t) => t.thread_id)).toEqual(["t4", "t3", "t2"]);
  });
});
