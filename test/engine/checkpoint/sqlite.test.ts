/** SqliteSaver against the conformance suite, on a real file in a fresh temp dir. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newCheckpointId } from "../../../engine/checkpoint/ids.ts";
import { SqliteSaver } from "../../../engine/checkpoint/sqlite.ts";
import type { Checkpoint, CheckpointMetadata } from "../../../engine/checkpoint/types.ts";
import { describeCheckpointerConformance } from "./conformance.ts";

async function tempDir(): Promise<{ path: string; dispose(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "switchboard-sqlite-"));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

describeCheckpointerConformance("SqliteSaver", async () => {
  const dir = await tempDir();
  const saver = new SqliteSaver(join(dir.path, "checkpoints.db"));
  return {
    saver,
    dispose: async () => {
      saver.close();
      await dir.dispose();
    },
  };
});

describe("SqliteSaver file", () => {
  let dir: { path: string; dispose(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.dispose();
  });

  it("gives back the same data after the file is closed and reopened", async () => {
    const file = join(dir.path, "checkpoints.db");
    const first = new SqliteSaver(file);
    expect(first.db.pragma("journal_mode", { simple: true })).toBe("wal");
    const id = newCheckpointId();
    const cp: Checkpoint = {
      v: 1,
      id,
      ts: new Date().toISOString(),
      channelValues: { n: 0, s: "" },
      channelVersions: { n: 1, s: 1 },
      versionsSeen: {},
    };
    const md: CheckpointMetadata = { source: "loop", step: 0, parents: {}, runId: "r" };
    const config = await first.put({ threadId: "t", checkpointNs: "" }, cp, md);
    await first.putWrites(config, [["a", false], ["b", null]], "task-1");
    await first.putWrites(config, [["c", "✓"]], "task-2");
    await first.putWrites(config, [["a", true]], "task-1");
    const before = await first.getTuple(config);
    first.close();

    const second = new SqliteSaver(file);
    try {
      const after = await second.getTuple({ threadId: "t", checkpointNs: "" });
      expect(after).toEqual(before);
      expect(after?.pendingWrites).toEqual([
        ["task-1", "a", true],
        ["task-1", "b", null],
        ["task-2", "c", "✓"],
      ]);
      // Sequence numbers continue after reopening: new writes still come last.
      await second.putWrites(config, [["d", 1]], "task-3");
      expect((await second.getTuple(config))?.pendingWrites.at(-1)).toEqual(["task-3", "d", 1]);
    } finally {
      second.close();
    }
  });

  it("leaves an adopted Database open on close", async () => {
    const owner = new SqliteSaver(join(dir.path, "owned.db"));
    const adopted = new SqliteSaver(owner.db);
    adopted.close();
    expect(owner.db.open).toBe(true);
    owner.close();
    expect(owner.db.open).toBe(false);
  });
});
