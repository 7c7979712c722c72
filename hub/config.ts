/**
 * Hub configuration: what `createHub` accepts, the defaults, and the
 * environment variables `npm start` reads.
 */
import type { AssistantFactory } from "./runs/assistants.ts";
import type { ReviewConfig } from "./review/index.ts";
import type { EventTransformer } from "./threads/index.ts";
import { consoleLogger, type Logger } from "./logger.ts";

export interface HubLimits {
  /** Largest inbound command frame; bigger ones get `payload_too_large` (the connection lives). */
  maxFrameBytes: number;
  /** Frames beyond this are a protocol violation: `ws` closes with 1009. */
  maxPayloadBytes: number;
  /** Events kept per thread for replay. */
  replayCapacity: number;
  /** Thread logs kept in memory; idle ones beyond it are rebuilt from checkpoints on demand. */
  maxLoadedThreads: number;
  /** Past this many buffered bytes a connection is slow: message deltas are coalesced. */
  sendSoftBytes: number;
  /** Past this many buffered + queued bytes a slow consumer is terminated. */
  sendHardBytes: number;
  /** How often a slow connection's queue is retried. */
  flushIntervalMs: number;
  /** Commands per second per connection (sustained), and the burst allowed. */
  commandsPerSecond: number;
  commandBurst: number;
  /** WebSocket ping interval; a connection that answers no ping for two intervals is dropped. */
  heartbeatMs: number;
  /** A socket with no subscription and no inbound frame for this long is closed (4408); 0 = never. */
  idleTimeoutMs: number;
  /** SSE comment heartbeat interval. */
  sseHeartbeatMs: number;
}

export interface HubConfig {
  /** Port to listen on (0 = any free port). */
  port?: number;
  host?: string;
  /** Directory of the SQLite file; null keeps everything in memory. */
  dataDir?: string | null;
  /** HS256 secret; undefined = open dev mode. */
  jwtSecret?: string | undefined;
  assistants?: AssistantFactory;
  /**
   * Directory of the built web app served at `/` (default: client/web/dist of
   * this package; null serves no app). Build it with `npm run build:web`.
   */
  webRoot?: string | null;
  /** Demo token delay (ms) when the default demo assistants are served. */
  demoTokenDelayMs?: number;
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
  logger?: Logger;
}

export const DEFAULT_LIMITS: HubLimits = {
  maxFrameBytes: 64 * 1024,
  maxPayloadBytes: 1024 * 1024,
  replayCapacity: 10_000,
  maxLoadedThreads: 1_000,
  sendSoftBytes: 256 * 1024,
  sendHardBytes: 4 * 1024 * 1024,
  flushIntervalMs: 25,
  commandsPerSecond: 50,
  commandBurst: 100,
  heartbeatMs: 30_000,
  idleTimeoutMs: 5 * 60_000,
  sseHeartbeatMs: 5_000,
};

export { consoleLogger, silentLogger, type Logger } from "./logger.ts";

export const DB_FILE_NAME = "switchboard.sqlite";

/** `npm start`'s configuration from the environment. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  const port = env["PORT"] === undefined ? 8787 : Number(env["PORT"]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env["PORT"]}`);
  const secret = env["SWITCHBOARD_JWT_SECRET"];
  return {
    port,
    host: env["HOST"] ?? "0.0.0.0",
    dataDir: env["SWITCHBOARD_DATA_DIR"] ?? "./data",
    jwtSecret: secret === undefined || secret === "" ? undefined : secret,
    logger: consoleLogger,
  };
}
