/**
 * Test files share their worker's module cache (vitest isolate: false), so a
 * fixture module is evaluated once per worker: a top-level afterEach (or
 * beforeEach, afterAll, beforeAll) in it would hook only the first test file
 * that imported it, and later files would silently skip their cleanups.
 * Fixtures register with onCleanup (test/support/cleanup.ts) instead.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const TEST = fileURLToPath(new URL("..", import.meta.url));
/** The one module allowed to: vitest runs it before every test file. */
const SETUP = "support/setup.ts";

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : modules(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

it("no fixture module registers a hook at its top level", () => {
  const offenders = modules(TEST)
    .filter((path) => relative(TEST, path) !== SETUP)
    .flatMap((path) =>
      readFileSync(path, "utf8")
        .split("\n")
        .flatMap((line, i) => (/^(afterEach|beforeEach|afterAll|beforeAll)\(/.test(line) ? [`${relative(TEST, path)}:${i + 1}: ${line.trim()} — use onCleanup from test/support/cleanup.ts`] : [])),
    );
  expect(modules(TEST).length).toBeGreaterThan(10); // it looked at the fixtures
  expect(offenders).toEqual([]);
});
