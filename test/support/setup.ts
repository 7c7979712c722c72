/**
 * Runs before every test file (vitest setupFiles), also when files share a
 * worker: the fixtures' cleanups after each test and after the file, and per file whatever a
 * file may have changed for its own tests (fake timers, mocks, stubbed
 * globals and environment) put back, so the next file in the worker starts clean.
 */
import { afterAll, afterEach, vi } from "vitest";
import { runCleanups, runFileCleanups } from "./cleanup.ts";

afterEach(runCleanups);

afterAll(async () => {
  try {
    await runFileCleanups();
  } finally {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  }
});
