import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

/**
 * The files that take longest (measured with `--reporter=json`), started
 * first so that the two workers finish together. Vitest orders by the last
 * run's durations when it has them, but a clean clone has none and gets
 * larger files first, which put e.g. runs/crash and the Postgres stores late.
 * A file missing here only runs later.
 */
const SLOW_FIRST = [
  // Chromium files alternate with the process and cluster files, so that the
  // two workers rarely drive two browsers at once on two cores.
  "test/web/actions.test.ts",
  "test/hub/cluster/multi-process.test.ts",
  "test/web/app.test.ts",
  "test/hub/cluster/faults.test.ts",
  "test/web/review.test.ts",
  "test/hub/runs/crash.test.ts",
  "test/hub/http/langgraph/use-stream.test.ts",
  "test/hub/limits/audit.test.ts",
  "test/web/run.test.ts",
  "test/hub/storage/sqlite/data-dir-lock.test.ts",
  "test/web/link.test.ts",
  "test/hub/storage/postgres/review-store.test.ts",
  "test/web/overdue.test.ts",
  "test/hub/limits/paused-sockets.test.ts",
  "test/hub/cluster/across-nodes.test.ts",
  "test/hub/cluster/two-nodes.test.ts",
  "test/hub/limits/retained-subscriptions.test.ts",
  "test/client/cli/serve.test.ts",
  "test/client/cli/quickstart.test.ts",
  "test/hub/main.test.ts",
  "test/hub/cluster/review-workflows.test.ts",
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = SLOW_FIRST.indexOf(relative(spec.project.config.root, spec.moduleId).replaceAll("\\", "/"));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: SlowFirst },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
