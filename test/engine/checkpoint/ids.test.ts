/** newCheckpointId: UUID-v7 shape and strict lexicographic order within the process. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkpointIdTime, compareCheckpointIds, newCheckpointId } from "../../../engine/checkpoint/ids.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newCheckpointId", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("makes 36-char UUID-v7-shaped ids carrying the creation time", () => {
    const before = Date.now();
    const id = newCheckpointId();
    expect(id).toMatch(UUID_V7);
    const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now());
  });

  it("is strictly increasing for many ids made in the same millisecond", () => {
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 60_000);
    const ids = Array.from({ length: 50_000 }, () => newCheckpointId());
    for (let i = 1; i < ids.length; i++) {
      expect(ids[i]! > ids[i - 1]!).toBe(true);
    }
    expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
  });

  it("stays increasing when the clock steps back", () => {
    const now = Date.now() + 120_000;
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    const first = newCheckpointId();
    clock.mockReturnValue(now - 5_000);
    const second = newCheckpointId();
    expect(second > first).toBe(true);
  });

  it("compares ids in creation order", () => {
    const [a, b] = [newCheckpointId(), newCheckpointId()];
    expect(compareCheckpointIds(a, b)).toBeLessThan(0);
    expect(compareCheckpointIds(b, a)).toBeGreaterThan(0);
    expect(compareCheckpointIds(a, a)).toBe(0);
    expect([b, a].sort(compareCheckpointIds)).toEqual([a, b]);
  });

  it("gives back the time inside an id, and nothing for ids of other shapes", () => {
    const clock = vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2031, 4, 6, 7, 8, 9, 123));
    expect(checkpointIdTime(newCheckpointId())).toBe(Date.UTC(2031, 4, 6, 7, 8, 9, 123));
    clock.mockReturnValue(2 ** 48 - 1);
    expect(checkpointIdTime(newCheckpointId())).toBe(2 ** 48 - 1);
    for (const other of ["", "1", "checkpoint-1", "01a22ced-1754-4566-8b13-461261fa9d68", "01A22CED-1754-7566-8B13-461261FA9D68"]) {
      expect(checkpointIdTime(other)).toBeUndefined();
    }
  });
});
