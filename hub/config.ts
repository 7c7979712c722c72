/**
 * Hub configuration: what `createHub` accepts, the defaults, and the
 * environment variables `npm start` and `switchboard serve` read. Every
 * config is checked by one schema (config-schema.ts) before the hub starts.
 */
import type { RetentionConfig } from "./runs/retention.ts";
import type { z } from "zod";
import type { AssistantFactory } from "./runs/assistants.ts";
import type { ReviewConfig } from "./review/index.ts";
import type { WebhooksConfig } from "./review/webhooks/dispatcher.ts";
import type { AnswerLinksConfig } from "./review/links/service.ts";
import type { EventTransformer } from "./threads/index.ts";
import { MIN_SECRET_BYTES } from "./auth/jwt.ts";
import { ConfigError, checkConfig, hubConfigSchema, isOrigin, type limitsSchema } from "./config-schema.ts";
import { CLUSTER_ENV_VARS, clusterFromEnv, type ClusterConfig } from "./cluster-config.ts";
import { jsonLogger, type Logger } from "./logger.ts";

export interface HubLimits {
  /**
   * The one limit on what a client sends at once, in bytes: a WebSocket command
   * frame (bigger ones get `payload_too_large`, the connection lives), and every
   * HTTP request body (`POST /commands`, REST, SSE, the LangGraph API: 413
   * `payload_too_large`, enforced while the body is read).
   */
  maxFrameBytes: number;
  /** Deepest nesting of arrays and objects in a command or body; deeper ones get `invalid_argument` before any work. */
  maxJsonDepth: number;
  /** Largest id a client may choose (a new thread's id), in bytes. */
  maxIdBytes: number;
  /** Largest metadata object a client may store with a thread or run, in bytes of JSON. */
  maxMetadataBytes: number;
  /** Frames beyond this are a protocol violation: `ws` closes with 1009. */
  maxPayloadBytes: number;
  /** Subscriptions kept for `subscription.reconnect` after their connection closed: at most this many… */
  retainedSubscriptions: number;
  /** …of at most this many bytes together (filters included)… */
  retainedSubscriptionBytes: number;
  /** …each for at most this long after its connection closed. */
  retainedSubscriptionMs: number;
  /** Events kept per thread for replay. */
  replayCapacity: number;
  /** Thread logs kept in memory; idle ones beyond it are rebuilt from checkpoints on demand. */
  maxLoadedThreads: number;
  /** Past this many buffered bytes a connection is slow: message deltas are coalesced. */
  sendSoftBytes: number;
  /** Past this many buffered + queued bytes a slow consumer is terminated. */
  sendHardBytes: number;
  /** A backlogged consumer that read nothing for this long is terminated (a reader that stopped). */
  sendQueueMaxMs: number;
  /** How often a slow connection's queue is retried. */
  flushIntervalMs: number;
  /** Commands per second per connection (sustained), and the burst allowed. */
  commandsPerSecond: number;
  commandBurst: number;
  /** REST requests per second per caller (tenant and subject; sustained), and the burst allowed. */
  restRequestsPerSecond: number;
  restBurst: number;
  /** WebSocket ping interval; a connection that answers no ping for two intervals is dropped. */
  heartbeatMs: number;
  /** A socket with no subscription and no inbound frame for this long is closed (4408); 0 = never. */
  idleTimeoutMs: number;
  /** SSE comment heartbeat interval. */
  sseHeartbeatMs: number;
}

/** Tokens from an identity provider: RS256/ES256 verified against its JSON Web Key Set. */
export interface JwksConfig {
  /** Where the key set is served (`SWITCHBOARD_JWKS_URL`); fetched on first use, cached. */
  url: string;
  /** Required `iss` claim (`SWITCHBOARD_JWT_ISSUER`). */
  issuer: string;
  /** Required `aud` claim, one of these (`SWITCHBOARD_JWT_AUDIENCE`, comma-separated). */
  audience: string | readonly string[];
  /** How long a fetched key set is used before it is fetched again (default 10 min). */
  cacheMaxAgeMs?: number;
}

export interface HubConfig {
  /** Port to listen on (0 = any free port). */
  port?: number;
  /** Interface to bind (default 127.0.0.1: this machine only). */
  host?: string;
  /** Directory of the SQLite file; null keeps everything in memory. */
  dataDir?: string | null;
  /** HS256 secret; with neither it nor `jwks`, open dev mode. */
  jwtSecret?: string | undefined;
  /** Identity-provider tokens (RS256/ES256), beside or instead of `jwtSecret`. */
  jwks?: JwksConfig | undefined;
  /**
   * Origins whose web pages may call the hub (CORS and the WebSocket `Origin`
   * check). Same-origin pages (the hub's own web app) always may, requests
   * without an `Origin` (servers, CLIs) always may; `["*"]` allows every page.
   */
  allowedOrigins?: readonly string[];
  assistants?: AssistantFactory;
  /**
   * Directory of the built web app served at `/` (default: client/web/dist of
   * this package; null serves no app). Build it with `npm run build:web`.
   */
  webRoot?: string | null;
  /** Demo token delay (ms) when the default demo assistants are served. */
  demoTokenDelayMs?: number;
  /** One of several nodes: the Postgres (and Redis) they share. See docs/operations.md, "Running several nodes". */
  cluster?: ClusterConfig;
  limits?: Partial<HubLimits>;
  /**
   * How a refused WebSocket upgrade is answered: "http" (401/403/404 before the
   * socket opens, the default) or "close" (accept, then close with 4401/4403/4404,
   * which the official SDK treats as final instead of retrying). A client can
   * also ask for "close" with `?refuse=close`.
   */
  wsRefusal?: "http" | "close";
  /** Redacts or drops events before they are numbered and encoded. */
  transformEvent?: EventTransformer;
  /** Review routing: default queue, routing hook, default expiry, claim TTL, clock. */
  review?: ReviewConfig;
  /** Signed webhooks of review events and run ends, through a durable outbox. See docs/operations.md, "Webhooks". */
  webhooks?: WebhooksConfig;
  /** Signed single-use answer links (secret default: derived from jwtSecret). See docs/operations.md, "Answer links". */
  answerLinks?: AnswerLinksConfig;
  /** Delete threads idle longer than `threadTtlMs` (checked every `sweepIntervalMs`). See docs/operations.md, "Retention". */
  retention?: RetentionConfig;
  logger?: Logger;
}

export const DEFAULT_LIMITS: HubLimits = {
  maxFrameBytes: 64 * 1024,
  maxJsonDepth: 64,
  maxIdBytes: 256,
  maxMetadataBytes: 16 * 1024,
  maxPayloadBytes: 1024 * 1024,
  retainedSubscriptions: 50_000,
  retainedSubscriptionBytes: 16 * 1024 * 1024,
  retainedSubscriptionMs: 10 * 60_000,
  replayCapacity: 10_000,
  maxLoadedThreads: 1_000,
  sendSoftBytes: 256 * 1024,
  sendHardBytes: 4 * 1024 * 1024,
  sendQueueMaxMs: 10_000,
  flushIntervalMs: 25,
  commandsPerSecond: 50,
  commandBurst: 100,
  restRequestsPerSecond: 100,
  restBurst: 200,
  heartbeatMs: 30_000,
  idleTimeoutMs: 5 * 60_000,
  sseHeartbeatMs: 5_000,
};

// The schema lists exactly the limits above, no more, no fewer.
type SchemaLimits = Required<z.infer<typeof limitsSchema>>;
export const LIMITS_MATCH_SCHEMA: [keyof SchemaLimits] extends [keyof HubLimits] ? ([keyof HubLimits] extends [keyof SchemaLimits] ? true : never) : never = true;

// The schema has exactly HubConfig's fields: a documented field the schema refuses (webRoot
// was) or a schema key HubConfig lacks breaks the build here.
type SchemaKeys = keyof z.infer<typeof hubConfigSchema>;
export const CONFIG_MATCHES_SCHEMA: [SchemaKeys] extends [keyof HubConfig] ? ([keyof HubConfig] extends [SchemaKeys] ? true : never) : never = true;

export { consoleLogger, jsonLogger, silentLogger, type LogFields, type Logger } from "./logger.ts";
export { ConfigError, type ConfigErrorCode } from "./config-schema.ts";

/** Loopback interfaces: the only ones the hub binds without a warning. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Checks a config with the one schema; throws a ConfigError (one line, with the fix). */
export function validateConfig(config: unknown, where?: string): HubConfig {
  const checked = checkConfig(hubConfigSchema, config, where);
  if (checked.jwtSecret !== undefined && checked.jwtSecret !== "") checkSecret(checked.jwtSecret, "jwtSecret");
  // The schema's output equals its input for every field (no transforms): hand back the caller's object.
  return config as HubConfig;
}

function checkSecret(secret: string, name: string): void {
  const bytes = Buffer.byteLength(secret);
  if (bytes < MIN_SECRET_BYTES) {
    throw new ConfigError("CONFIG_ERR_INVALID", `${name} is ${bytes} bytes; HS256 needs at least ${MIN_SECRET_BYTES} — generate one with \`openssl rand -hex 32\``);
  }
}

export const DB_FILE_NAME = "switchboard.sqlite";

/** The environment variables the hub reads (`configFromEnv`), for docs and the tests that keep them in step. */
export const HUB_ENV_VARS = [
  "PORT",
  "HOST",
  "SWITCHBOARD_DATA_DIR",
  "SWITCHBOARD_JWT_SECRET",
  "SWITCHBOARD_JWKS_URL",
  "SWITCHBOARD_JWT_ISSUER",
  "SWITCHBOARD_JWT_AUDIENCE",
  "SWITCHBOARD_ALLOWED_ORIGINS",
  "SWITCHBOARD_DEMO_TOKEN_DELAY_MS",
  ...CLUSTER_ENV_VARS,
] as const;

type HubEnv = Partial<Record<(typeof HUB_ENV_VARS)[number], string>>;

/** SWITCHBOARD_DEMO_TOKEN_DELAY_MS: the demo assistants' pace (what `npm start` and `switchboard serve` both honour). */
function demoDelayFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^\d+$/.test(value)) throw new ConfigError("CONFIG_ERR_INVALID", `SWITCHBOARD_DEMO_TOKEN_DELAY_MS must be a whole number of milliseconds, got ${JSON.stringify(value)}`);
  return Number(value);
}

const list = (value: string | undefined): string[] => (value ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");

/**
 * `npm start`'s and `switchboard serve`'s configuration from the environment.
 * Throws a ConfigError naming the variable and the fix; never a stack trace's worth.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  const e: HubEnv = env;
  const port = e.PORT === undefined || e.PORT === "" ? 8787 : Number(e.PORT);
  if (!/^\d+$/.test(e.PORT ?? "8787") || !Number.isInteger(port) || port > 65535) {
    throw new ConfigError("CONFIG_ERR_INVALID", `PORT must be a port number 0–65535 (0 = any free port), got ${JSON.stringify(e.PORT)}`);
  }
  const secret = e.SWITCHBOARD_JWT_SECRET === "" ? undefined : e.SWITCHBOARD_JWT_SECRET;
  if (secret !== undefined) checkSecret(secret, "SWITCHBOARD_JWT_SECRET");
  const origins = list(e.SWITCHBOARD_ALLOWED_ORIGINS);
  const badOrigin = origins.find((o) => o !== "*" && !isOrigin(o));
  if (badOrigin !== undefined) {
    throw new ConfigError("CONFIG_ERR_INVALID", `SWITCHBOARD_ALLOWED_ORIGINS: ${JSON.stringify(badOrigin)} is not an origin; write scheme://host[:port], e.g. https://app.example.com (comma-separated)`);
  }
  const config: HubConfig = {
    port,
    host: e.HOST === undefined || e.HOST === "" ? "127.0.0.1" : e.HOST,
    dataDir: e.SWITCHBOARD_DATA_DIR === undefined || e.SWITCHBOARD_DATA_DIR === "" ? "./data" : e.SWITCHBOARD_DATA_DIR,
    jwtSecret: secret,
    ...(origins.length > 0 ? { allowedOrigins: origins } : {}),
    logger: jsonLogger(),
  };
  const delay = demoDelayFromEnv(e.SWITCHBOARD_DEMO_TOKEN_DELAY_MS);
  if (delay !== undefined) config.demoTokenDelayMs = delay;
  const cluster = clusterFromEnv(env);
  if (cluster !== undefined) config.cluster = cluster;
  const jwksUrl = e.SWITCHBOARD_JWKS_URL;
  if (jwksUrl !== undefined && jwksUrl !== "") {
    const audience = list(e.SWITCHBOARD_JWT_AUDIENCE);
    if (e.SWITCHBOARD_JWT_ISSUER === undefined || e.SWITCHBOARD_JWT_ISSUER === "" || audience.length === 0) {
      throw new ConfigError(
        "CONFIG_ERR_INVALID",
        "SWITCHBOARD_JWKS_URL needs SWITCHBOARD_JWT_ISSUER and SWITCHBOARD_JWT_AUDIENCE: without them a token your identity provider issued for any other application would be accepted",
      );
    }
    config.jwks = { url: jwksUrl, issuer: e.SWITCHBOARD_JWT_ISSUER, audience: audience.length === 1 ? (audience[0] ?? "") : audience };
  }
  return validateConfig(config, "environment");
}
