/**
 * The data dir's lock: one hub process per data dir. It is taken before the
 * hub reads anything there, held for the hub's life, and a second hub on the
 * same dir gets DataDirInUseError naming the holder's pid — and changes
 * nothing (it never opens the database).
 *
 * Why this mechanism: the lock is an OS file lock (POSIX `fcntl`, LockFileEx
 * on Windows) that SQLite takes on `switchboard.lock` for a connection in
 * `locking_mode = EXCLUSIVE`. The kernel drops it when the process ends, by
 * any means (kill -9, OOM, power loss), so a stale lock cannot exist and a
 * restart is never blocked or delayed. A pid file checked for liveness would
 * be fooled by pid reuse (in a fresh container the dead hub's pid is often a
 * live process again — even the new hub's own `npm` parent), and an
 * mtime-refreshed lock (proper-lockfile) makes a restart after kill -9 wait
 * out the stale period and can be stolen while the event loop is stalled. It
 * needs no new dependency: better-sqlite3 is already the driver.
 *
 * The holder writes its pid into the lock file's header (`user_version`, a
 * 4-byte big-endian field at offset 60 of the SQLite file format) inside the
 * locked transaction; a refused process reads those bytes with plain `fs`
 * (file locks are advisory, reading is allowed).
 *
 * Caveats, by design: POSIX locks are per process, and closing *any*
 * descriptor of the file drops them all — so within one process the lock is
 * also kept in `held` and this process never opens the file a second time
 * while it holds it. The file is never deleted (unlinking a lock file races
 * with the next opener); it is only locked. Network file systems without
 * working `fcntl` locks are not supported for the data dir.
 */
import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

export const LOCK_FILE_NAME = "switchboard.lock";

export class DataDirInUseError extends Error {
  readonly code = "data_dir_in_use";
  readonly dir: string;
  /** The holder's pid, when it could be read. */
  readonly pid: number | undefined;
  constructor(dir: string, pid: number | undefined) {
    super(
      `data dir ${dir} is in use by ${pid === undefined ? "another process" : `pid ${pid}`}: ` +
        "stop that hub first, or give this one another data dir (--data-dir, SWITCHBOARD_DATA_DIR)",
    );
    this.name = "DataDirInUseError";
    this.dir = dir;
    this.pid = pid;
  }
}

export interface DataDirLock {
  readonly dir: string;
  release(): void;
}

/** Locks held by this process, by the data dir's real path. */
const held = new Set<string>();

/** Takes the lock of an existing directory or throws DataDirInUseError. Never waits. */
export function lockDataDir(dir: string): DataDirLock {
  const real = realpathSync(dir);
  if (held.has(real)) throw new DataDirInUseError(real, process.pid);
  const file = join(real, LOCK_FILE_NAME);
  // timeout 0: a held lock fails at once with SQLITE_BUSY instead of waiting.
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    // The exclusive transaction takes the file lock; EXCLUSIVE locking mode keeps it after COMMIT.
    db.transaction(() => db.pragma(`user_version = ${process.pid}`)).exclusive();
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new DataDirInUseError(real, holderPid(file));
    throw error;
  }
  held.add(real);
  let released = false;
  return {
    dir: real,
    release() {
      if (released) return;
      released = true;
      db.close();
      held.delete(real);
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

/** The pid another process wrote into the header (only ever called when this process does not hold the lock). */
function holderPid(file: string): number | undefined {
  const header = Buffer.alloc(64);
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    if (readSync(fd, header, 0, 64, 0) < 64) return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (header.toString("latin1", 0, 16) !== "SQLite format 3\0") return undefined;
  const pid = header.readUInt32BE(60);
  return pid > 0 ? pid : undefined;
}
