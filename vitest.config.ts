import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // Test files share their worker's module cache: each file no longer pays
    // for importing the hub, zod, hono… again (that was most of the CPU time).
    // Fixtures register cleanups in test/support/cleanup.ts, which setup.ts
    // runs after every test; setup.ts also puts timers and mocks back per file.
    isolate: false,
    // Two files at a time (vitest's default on a 2-core machine is one): the
    // suite spends much of its time waiting on child processes, Chromium,
    // Postgres and timers, and the other worker fills those gaps.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
