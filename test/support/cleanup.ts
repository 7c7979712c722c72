/**
 * The one list of things a test leaves to dispose (hubs, sockets, processes,
 * temp dirs), run after every test by test/support/setup.ts, last registered
 * first. One list rather than an afterEach per fixture module: the test files
 * share a worker's module cache (vitest `isolate: false`), so a fixture module
 * is evaluated once per worker and a top-level afterEach in it would hook only
 * the first file that imported it.
 */
type Cleanup = () => Promise<void> | void;

const cleanups: Cleanup[] = [];

/** Runs after the current test, last registered first. */
export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}

/** Runs every pending cleanup, even after one fails; then throws the first failure. */
export async function runCleanups(): Promise<void> {
  const errors: unknown[] = [];
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} cleanups failed`);
}

const fileCleanups: Cleanup[] = [];

/** Runs after the current test file (its last test and afterAll hooks), last registered first. */
export function onFileCleanup(fn: Cleanup): void {
  fileCleanups.push(fn);
}

/** Runs every pending file cleanup, as runCleanups does the test's. */
export async function runFileCleanups(): Promise<void> {
  const errors: unknown[] = [];
  for (const fn of fileCleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} file cleanups failed`);
}
