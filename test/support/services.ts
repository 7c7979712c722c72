/**
 * The external services some tests run against — Postgres (DATABASE_URL) and
 * Redis (REDIS_URL) — and disposable places in them.
 *
 * A test never guesses an address: with the variable unset it is skipped with
 * a message saying which variable to set, except under CI=true, where an unset
 * variable fails the run (.ci/run exports both for the machine's services).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, it } from "vitest";

export type ServiceVariable = "DATABASE_URL" | "REDIS_URL";

const EXAMPLES: Record<ServiceVariable, string> = {
  DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
  REDIS_URL: "redis://127.0.0.1:6379",
};

/** The service's URL, or undefined when it is unset outside CI. Throws under CI=true when unset. */
export function serviceUrl(variable: ServiceVariable): string | undefined {
  const url = process.env[variable];
  if (url !== undefined && url !== "") return url;
  if (process.env["CI"] === "true") {
    throw new Error(`${variable} is not set but CI=true: .ci/run must export it (e.g. ${EXAMPLES[variable]})`);
  }
  return undefined;
}

/**
 * `describe` when the service is configured; otherwise one skipped test whose
 * name says how to run the suite.
 */
export function describeWith(variable: ServiceVariable, name: string, body: (url: string) => void): void {
  const url = serviceUrl(variable);
  if (url === undefined) {
    describe(name, () => {
      it.skip(`skipped: ${variable} is not set (set ${variable}=${EXAMPLES[variable]} to run)`, () => {});
    });
    return;
  }
  describe(name, () => body(url));
}

/**
 * `describe` when Postgres and Redis are both configured (several nodes share
 * both); otherwise one skipped test whose name says which variable to set.
 */
export function describeWithCluster(name: string, body: (urls: { databaseUrl: string; redisUrl: string }) => void): void {
  const databaseUrl = serviceUrl("DATABASE_URL");
  const redisUrl = serviceUrl("REDIS_URL");
  if (databaseUrl === undefined || redisUrl === undefined) {
    const missing = (["DATABASE_URL", "REDIS_URL"] as const).filter((v) => serviceUrl(v) === undefined);
    describe(name, () => {
      it.skip(`skipped: ${missing.join(" and ")} not set (set ${missing.map((v) => `${v}=${EXAMPLES[v]}`).join(" ")} to run)`, () => {});
    });
    return;
  }
  describe(name, () => body({ databaseUrl, redisUrl }));
}

/**
 * Pool settings for tests: few connections (the machine's Postgres is shared by
 * parallel test files and other users), and commits that do not wait for the
 * WAL flush — a test never crashes the database server, and an fsync per
 * commit would make the checkpoint-heavy suites several times slower.
 */
export const TEST_POOL_CONFIG = { max: 4, options: "-c synchronous_commit=off" } as const;

let counter = 0;

/** A schema name no other test, file or process uses. */
export function uniqueSchemaName(prefix = "t"): string {
  counter += 1;
  return `sb_${prefix}_${process.pid}_${counter}_${randomBytes(4).toString("hex")}`;
}

/** Drops a schema made for a test, with everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
