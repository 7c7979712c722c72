/**
 * The configuration of a hub that is one of several nodes (docs/operations.md,
 * "Running several nodes"): what they share, from `HubConfig.cluster` or the
 * SWITCHBOARD_DATABASE_URL / SWITCHBOARD_REDIS_URL / … variables.
 */
import { hostname } from "node:os";
import { ConfigError } from "./config-schema.ts";

export interface ClusterConfig {
  /** Postgres for everything durable: checkpoints, threads, runs, review items, claims, audit, leases. */
  databaseUrl: string;
  /** Redis for the event bus (live fan-out and replay by seq across nodes); needs databaseUrl. */
  redisUrl?: string;
  /** This node's name in leases and run records (default: host name and pid). */
  nodeId?: string;
  /** How long a run's lease lasts without a heartbeat (default 10,000 ms). */
  runLeaseMs?: number;
  /** Postgres schema of the hub's tables (default "switchboard"). */
  schema?: string;
  /** Prefix of the hub's Redis keys and channels (default "sb:"). */
  redisPrefix?: string;
}

export const DEFAULT_RUN_LEASE_MS = 10_000;
export { MIN_RUN_LEASE_MS } from "./config-schema.ts";
import { MIN_RUN_LEASE_MS } from "./config-schema.ts";

export const CLUSTER_ENV_VARS = [
  "SWITCHBOARD_DATABASE_URL",
  "SWITCHBOARD_REDIS_URL",
  "SWITCHBOARD_NODE_ID",
  "SWITCHBOARD_RUN_LEASE_MS",
  "SWITCHBOARD_DATABASE_SCHEMA",
  "SWITCHBOARD_REDIS_PREFIX",
] as const;


export function defaultNodeId(): string {
  return `${hostname()}-${process.pid}`;
}

/** The cluster part of configFromEnv; undefined for one node (no SWITCHBOARD_DATABASE_URL). */
export function clusterFromEnv(env: NodeJS.ProcessEnv): ClusterConfig | undefined {
  const set = (name: (typeof CLUSTER_ENV_VARS)[number]): string | undefined => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  const databaseUrl = set("SWITCHBOARD_DATABASE_URL");
  const redisUrl = set("SWITCHBOARD_REDIS_URL");
  if (databaseUrl === undefined) {
    if (redisUrl !== undefined) {
      throw new ConfigError(
        "CONFIG_ERR_INVALID",
        "SWITCHBOARD_REDIS_URL needs SWITCHBOARD_DATABASE_URL: several nodes keep everything durable in Postgres (set SWITCHBOARD_DATABASE_URL=postgres://…, or unset SWITCHBOARD_REDIS_URL to run one node)",
      );
    }
    return undefined;
  }
  const leaseText = set("SWITCHBOARD_RUN_LEASE_MS");
  const runLeaseMs = leaseText === undefined ? DEFAULT_RUN_LEASE_MS : Number(leaseText);
  if (!/^\d+$/.test(leaseText ?? "0") || runLeaseMs < MIN_RUN_LEASE_MS) {
    throw new ConfigError("CONFIG_ERR_INVALID", `SWITCHBOARD_RUN_LEASE_MS must be a whole number of milliseconds, at least ${MIN_RUN_LEASE_MS}, got ${JSON.stringify(leaseText)}`);
  }
  const schema = set("SWITCHBOARD_DATABASE_SCHEMA");
  const redisPrefix = set("SWITCHBOARD_REDIS_PREFIX");
  return {
    databaseUrl,
    ...(redisUrl === undefined ? {} : { redisUrl }),
    nodeId: set("SWITCHBOARD_NODE_ID") ?? defaultNodeId(),
    runLeaseMs,
    ...(schema === undefined ? {} : { schema }),
    ...(redisPrefix === undefined ? {} : { redisPrefix }),
  };
}
