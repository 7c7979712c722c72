/**
 * The data dir's lock within one process (two processes: data-dir-lock.test.ts):
 * a second hub on a locked dir is refused before it reads anything, the
 * first keeps working, and closing the first gives the dir back.
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirInUseError, createHub, silentLogger } from "../../../../hub/index.ts";
import { DB_FILE_NAME } from "../../../../hub/config.ts";
import { LOCK_FILE_NAME, lockDataDir } from "../../../../hub/storage/sqlite/index.ts";
import { tempDataDir } from "../../../support/hub.ts";
import { internalsOf } from "../../../../hub/hub.ts";

describe("data dir lock", () => {
  it("is taken before the database is opened: a refused hub creates no database file", () => {
    const dir = tempDataDir();
    const lock = lockDataDir(dir);
    try {
      expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
      expect(() => lockDataDir(dir)).toThrow(`data dir ${realpathSync(dir)} is in use by pid ${process.pid}`);
    } finally {
      lock.release();
    }
    expect(existsSync(join(dir, DB_FILE_NAME))).toBe(false);
    // Released: the next one gets it.
    lockDataDir(dir).release();
  });

  it("refuses a second hub on the same dir while the first runs on; close gives the dir back", async () => {
    const dataDir = tempDataDir();
    const first = await createHub({ dataDir, logger: silentLogger, demoTokenDelayMs: 0 });
    try {
      await expect(createHub({ dataDir, logger: silentLogger })).rejects.toMatchObject({ name: "DataDirInUseError", code: "data_dir_in_use", pid: process.pid });
      // A path spelled differently is the same dir.
      await expect(createHub({ dataDir: join(dataDir, "."), logger: silentLogger })).rejects.toThrow(DataDirInUseError);
      await internalsOf(first).store.createThread({ threadId: "t1", tenant: "default", assistantId: null, status: "idle", metadata: {} });
    } finally {
      await first.close();
    }
    const second = await createHub({ dataDir, logger: silentLogger });
    try {
      expect(await internalsOf(second).store.getThread("t1", "default")).toMatchObject({ threadId: "t1" });
    } finally {
      await second.close();
    }
  });

  it("a hub that fails to start leaves the dir unlocked", async () => {
    const dataDir = tempDataDir();
    const failing = createHub({ dataDir, logger: silentLogger, assistants: () => { throw new Error("bad assistants"); } });
    await expect(failing).rejects.toThrow("bad assistants");
    lockDataDir(dataDir).release();
  });
});
