/** Exhaustiveness guard for dispatch switches: adding a variant breaks the build. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
