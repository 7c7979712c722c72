/**
 * Assembles a hub from its config: one SQLite file (engine checkpoints and
 * hub records) or memory, the assistants, the run manager, the Hono app and
 * the WebSocket glue. `createHub` builds without listening; `start()` binds
 * (port 0 in tests) and `close()` shuts everything down in order.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createAdaptorServer } from "@hono/node-server";
import { createAuthenticator } from "./auth/index.ts";
import { DEFAULT_LIMITS, consoleLogger, type HubConfig } from "./config.ts";
import { demoAssistants } from "./demo/index.ts";
import { createApp } from "./http/app.ts";
import { HubMetrics } from "./metrics.ts";
import { PresenceRelay } from "./presence/index.ts";
import { ReviewCoordinator } from "./review/index.ts";
import { AssistantRegistry } from "./runs/assistants.ts";
import { RunManager } from "./runs/index.ts";
import type { HubServices } from "./services.ts";
import { SubscriptionDirectory } from "./sessions/directory.ts";
import { openStorage } from "./storage/index.ts";
import { ThreadLogs } from "./threads/index.ts";
import { attachWebSockets, type WebSocketGlue } from "./ws/server.ts";

/** The web app's build output in this package (client/web/dist). */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL("../client/web/dist", import.meta.url));

export interface Hub {
  readonly services: HubServices;
  /** Listens on config.port (default 8787; 0 = any). Resolves with the bound address. */
  start(): Promise<{ port: number; url: string }>;
  close(): Promise<void>;
}

export async function createHub(config: HubConfig = {}): Promise<Hub> {
  const logger = config.logger ?? consoleLogger;
  const limits = { ...DEFAULT_LIMITS, ...config.limits };
  const storage = openStorage(config.dataDir === undefined ? "./data" : config.dataDir);
  const auth = createAuthenticator({ secret: config.jwtSecret });
  const factory = config.assistants ?? demoAssistants(config.demoTokenDelayMs === undefined ? {} : { tokenDelayMs: config.demoTokenDelayMs });
  const assistants = new AssistantRegistry(factory(storage.checkpointer));
  const metrics = new HubMetrics();
  const logs = new ThreadLogs({
    capacity: limits.replayCapacity,
    maxLogs: limits.maxLoadedThreads,
    transform: config.transformEvent,
    inUse: (threadId) => runs.isBusy(threadId),
  });
  const runs: RunManager = new RunManager({
    store: storage.store,
    checkpointer: storage.checkpointer,
    assistants,
    logs,
    metrics,
    onError: (error, context) => logger.error(`${context}: ${String(error)}`),
    async originOf(threadId, interruptId) {
      const item = await storage.reviews.getItem(interruptId);
      return item && item.threadId === threadId ? { namespace: item.namespace, node: item.node } : undefined;
    },
  });
  const reviews = new ReviewCoordinator({
    reviewStore: storage.reviews,
    hubStore: storage.store,
    runs,
    logs,
    logger,
    config: config.review ?? {},
    openMode: auth.mode === "open",
  });
  runs.observe(reviews);
  const presence = new PresenceRelay({ onError: (error, context) => logger.error(`presence ${context}: ${String(error)}`) });
  const services: HubServices = { store: storage.store, runs, assistants, logs, metrics, limits, logger, auth, subscriptions: new SubscriptionDirectory(), reviews, presence };

  const abandoned = await runs.recover();
  reviews.start();
  if (abandoned.length > 0) logger.warn(`marked ${abandoned.length} run(s) left by a previous process as abandoned; their threads can be resumed`);
  if (auth.mode === "open") {
    logger.warn("!!! OPEN DEV MODE: SWITCHBOARD_JWT_SECRET is not set — every request is the 'dev' principal with all roles. Do not expose this hub. !!!");
  }

  const streams = new Set<() => void>();
  const app = createApp(services, {
    webRoot: config.webRoot === undefined ? DEFAULT_WEB_ROOT : config.webRoot,
    trackStream(end) {
      streams.add(end);
      return () => streams.delete(end);
    },
  });
  let server: Server | undefined;
  let sockets: WebSocketGlue | undefined;
  let closed = false;

  return {
    services,
    async start() {
      if (server) throw new Error("hub already started");
      // No createServer option: node-server builds a plain node:http Server.
      const s = createAdaptorServer({ fetch: app.fetch }) as Server;
      server = s;
      sockets = attachWebSockets(s, services, config.wsRefusal ?? "http");
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.listen(config.port ?? 8787, config.host ?? "127.0.0.1", () => resolve());
      });
      const address: string | AddressInfo | null = s.address();
      if (address === null || typeof address === "string") throw new Error(`unexpected server address ${String(address)}`);
      const { port } = address;
      const host = config.host === undefined || config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
      logger.info(`listening on http://${host}:${port} (${storage.path ?? "in-memory storage"}; assistants: ${assistants.list().map((a) => a.id).join(", ")})`);
      return { port, url: `http://${host}:${port}` };
    },
    async close() {
      if (closed) return;
      closed = true;
      reviews.close();
      await runs.close();
      for (const end of [...streams]) end();
      await sockets?.close();
      const s = server;
      if (s) {
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
      }
      presence.dispose();
      await storage.reviews.close();
      await storage.store.close();
      storage.close();
    },
  };
}

/** createHub + start, for scripts and tests. */
export async function startHub(config: HubConfig = {}): Promise<Hub & { port: number; url: string }> {
  const hub = await createHub(config);
  const address = await hub.start();
  return Object.assign(hub, address);
}
