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
import { createAuthenticator, type Authenticator } from "./auth/index.ts";
import { ConfigError, DEFAULT_LIMITS, consoleLogger, isLoopbackHost, validateConfig, type HubConfig, type HubLimits, type Logger } from "./config.ts";
import { originPolicy } from "./auth/index.ts";
import type { Assistant } from "./runs/assistants.ts";
import { demoAssistants } from "./demo/index.ts";
import { createApp } from "./http/app.ts";
import { HubMetrics, type HubStats } from "./metrics.ts";
import { BusPresenceLink, PresenceRelay } from "./presence/index.ts";
import { ReviewCoordinator } from "./review/index.ts";
import { WebhookDispatcher } from "./review/webhooks/dispatcher.ts";
import { AnswerLinks } from "./review/links/service.ts";
import { linkKey } from "./review/links/token.ts";
import { AssistantRegistry } from "./runs/assistants.ts";
import { ThreadSweeper } from "./runs/retention.ts";
import { RowSweeper } from "./review/retention.ts";
import { RunControl, RunManager, ThreadWatch, watchedStore } from "./runs/index.ts";
import { RunOwnership } from "./runs/ownership.ts";
import { DEFAULT_RUN_LEASE_MS, defaultNodeId } from "./cluster-config.ts";
import type { HubServices } from "./services.ts";
import { SubscriptionDirectory } from "./sessions/directory.ts";
import { openStorage, type Storage } from "./storage/index.ts";
import { ThreadLogs } from "./threads/index.ts";
import { attachWebSockets, type WebSocketGlue } from "./ws/server.ts";

/** The web app's build output in this package (client/web/dist). */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL("../client/web/dist", import.meta.url));

export interface Hub {
  /** The assistants it serves, in the order the config lists them. */
  assistants(): readonly Assistant[];
  /** "jwt": every client needs a token; "open": dev mode, everyone is the dev principal. */
  readonly auth: "jwt" | "open";
  /** Live counters and gauges: the numbers /metrics reports, without a scrape. */
  stats(): HubStats;
  /** Listens on config.port (default 8787; 0 = any). Resolves with the bound address. */
  start(): Promise<{ port: number; url: string }>;
  close(): Promise<void>;
}

/**
 * The hub's wiring, for the hub's own white-box tests (a run record, an event
 * log's subscribers, a review timer). Not part of the public surface:
 * hub/index.ts does not export it and the package exports no path to it.
 */
const internals = new WeakMap<Hub, HubServices>();

export function internalsOf(hub: Hub): HubServices {
  const services = internals.get(hub);
  if (services === undefined) throw new Error("not a hub made by createHub");
  return services;
}

/** An assistant whose graph keeps its own checkpointer (or none) could never be resumed by the hub. */
function checkAssistants(list: readonly Assistant[], checkpointer: unknown): void {
  for (const assistant of list) {
    const graph: object = assistant.graph;
    if (!("checkpointer" in graph) || graph.checkpointer === checkpointer) continue;
    throw new ConfigError(
      "CONFIG_ERR_ASSISTANT",
      `assistant "${assistant.id}" was compiled ${graph.checkpointer === undefined ? "without a checkpointer" : "with another checkpointer"}: compile it with the one the assistants factory receives, \`assistants: (checkpointer) => [{ id, description, graph: builder.compile({ checkpointer }) }]\``,
    );
  }
}

export async function createHub(input: HubConfig = {}): Promise<Hub> {
  const config = validateConfig(input);
  const logger = config.logger ?? consoleLogger;
  const limits = { ...DEFAULT_LIMITS, ...config.limits };
  const auth = createAuthenticator({ secret: config.jwtSecret, jwks: config.jwks });
  // Several nodes: the lease token of each thread this node runs; its checkpoint writes are fenced by it.
  const fences = new Map<string, number>();
  // Config errors first, then the data dir's lock (openStorage takes it before reading anything).
  const storage = await openStorage({ dataDir: config.dataDir === undefined ? "./data" : config.dataDir, cluster: config.cluster, fences, replayCapacity: limits.replayCapacity });
  try {
    return await assemble(config, logger, limits, auth, storage, fences);
  } catch (error) {
    // A hub that failed to start leaves the data dir as it found it: unlocked.
    await storage.close();
    throw error;
  }
}

async function assemble(config: HubConfig, logger: Logger, limits: HubLimits, auth: Authenticator, opened: Storage, fences: Map<string, number>): Promise<Hub> {
  const cluster = config.cluster;
  // Thread records as they change reach `threads.subscribe` (the web app's threads list), whatever writes them.
  const threadWatch = new ThreadWatch((error) => logger.error(`thread watcher: ${String(error)}`));
  const storage: Storage = { ...opened, store: watchedStore(opened.store, threadWatch) };
  const factory = config.assistants ?? demoAssistants(config.demoTokenDelayMs === undefined ? {} : { tokenDelayMs: config.demoTokenDelayMs });
  const list = factory(storage.checkpointer);
  checkAssistants(list, storage.checkpointer);
  const assistants = new AssistantRegistry(list);
  const metrics = new HubMetrics();
  const logs = new ThreadLogs({
    capacity: limits.replayCapacity,
    maxLogs: limits.maxLoadedThreads,
    transform: config.transformEvent,
    inUse: (threadId) => runs.isBusy(threadId),
    bus: storage.bus,
    seedOf: (threadId) => runs.seedOfThread(threadId),
    onError: (error, context) => logger.error(`${context}: ${String(error)}`),
  });
  const nodeId = cluster?.nodeId ?? defaultNodeId();
  const ownership = storage.leases && cluster
    ? new RunOwnership({
        leases: storage.leases,
        nodeId,
        leaseMs: cluster.runLeaseMs ?? DEFAULT_RUN_LEASE_MS,
        logs,
        fences,
        bus: storage.bus,
        onError: (error, context) => logger.error(`${context}: ${String(error)}`),
      })
    : undefined;
  const runs: RunManager = new RunManager({
    store: storage.store,
    checkpointer: storage.checkpointer,
    assistants,
    logs,
    metrics,
    nodeId,
    maxIdBytes: limits.maxIdBytes,
    onError: (error, context) => logger.error(`${context}: ${String(error)}`),
    logger,
    async originOf(threadId, interruptId) {
      const item = await storage.reviews.getItem(interruptId);
      return item && item.threadId === threadId ? { namespace: item.namespace, node: item.node, payloadDigest: item.payloadDigest } : undefined;
    },
    ...(ownership ? { ownership, resumeOf: (runId: string) => reviews.resumeOf(runId), waitingResume: (threadId: string) => reviews.waitingResume(threadId) } : {}),
    ...(ownership && storage.bus ? { control: new RunControl({ bus: storage.bus, nodeId, onError: (error, context) => logger.error(`${context}: ${String(error)}`) }) } : {}),
  });
  // Webhooks: deliveries go through the store's outbox; each node's worker claims due ones.
  // Always on: endpoints come from the config and from REST (stored per tenant).
  const webhooks = new WebhookDispatcher({
        outbox: storage.webhooks,
        config: config.webhooks ?? { endpoints: [] },
        nodeId,
        logger,
        // Answer links for the candidates named by sub, when the endpoint asks for them.
        extras: (endpoint, event) => {
          if (!endpoint.answerLinks || event.type !== "input.requested" || event.item === undefined || links === undefined) return {};
          const item = event.item;
          return { links: item.routing.users.flatMap((sub) => { try { return [links.mintFor(item, { sub })]; } catch { return []; } }) };
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
    cluster: cluster !== undefined,
    bus: storage.bus,
    nodeId,
    webhooks,
    transform: config.transformEvent,
  });
  runs.observe(reviews);
  const key = linkKey(config.answerLinks?.secret, config.jwtSecret);
  const links = key === undefined ? undefined : new AnswerLinks({ key, config: config.answerLinks ?? {}, uses: storage.linkUses, store: storage.reviews, reviews });
  const onPresenceError = (error: unknown, context: string): void => logger.error(`presence ${context}: ${String(error)}`);
  const presence = new PresenceRelay({
    onError: onPresenceError,
    // Several nodes: a room shows the viewers of every node.
    link: storage.bus ? new BusPresenceLink({ bus: storage.bus, nodeId, onError: onPresenceError }) : undefined,
  });
  const origins = originPolicy(config.allowedOrigins);
  const services: HubServices = { store: storage.store, items: storage.items, threadWatch, runs, assistants, logs, metrics, limits, logger, auth, origins, subscriptions: new SubscriptionDirectory(limits, storage.subscriptions), reviews, presence, webhooks: { outbox: storage.webhooks, dispatcher: webhooks }, links };

  const threadTtlMs = config.retention?.threadTtlMs;
  const sweeper = threadTtlMs !== undefined
    ? new ThreadSweeper({
        store: storage.store,
        config: { ...config.retention, threadTtlMs },
        deleteThread: async (thread) => {
          await runs.deleteThread(thread, async (threadId) => {
            await reviews.forgetThread(thread.tenant, threadId);
          });
        },
        onError: (error, context) => logger.error(`${context}: ${String(error)}`),
      })
    : undefined;
  const rowSweeper = new RowSweeper({
    outbox: storage.webhooks,
    linkUses: storage.linkUses,
    ...(config.retention?.webhookDeliveriesMs === undefined ? {} : { webhookDeliveriesMs: config.retention.webhookDeliveriesMs }),
    ...(config.retention?.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: config.retention.sweepIntervalMs }),
    onError: (error, context) => logger.error(`${context}: ${String(error)}`),
  });

  const abandoned = await runs.recover();
  // Answers a dead process accepted and handed to a resume it never finished: applied now, once.
  const reapplied = await reviews.recoverResumes();
  if (reapplied.length > 0) logger.warn(`re-applied the accepted answers of ${reapplied.length} resume(s) a previous process left unfinished`);
  await reviews.start();
  if (storage.bus) await threadWatch.connect(storage.bus, nodeId);
  webhooks.start();
  await runs.listen();
  ownership?.startSweeper((lease) => runs.takeOver(lease));
  sweeper?.start();
  rowSweeper.start();
  if (abandoned.length > 0) logger.warn(`marked ${abandoned.length} run(s) left by a previous process as abandoned; their threads can be resumed`);
  if (auth.mode === "open") {
    logger.warn("!!! OPEN DEV MODE: SWITCHBOARD_JWT_SECRET is not set — every request has all roles, as the 'dev' principal (or the user a dev.<name> token names). Do not expose this hub. !!!");
  }
  if (origins.allowed.has("*")) {
    logger.warn("allowedOrigins has \"*\": web pages of every site may call this hub (with their visitors' tokens)");
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

  const hub: Hub = {
    assistants: () => assistants.list(),
    auth: auth.mode,
    stats: () => {
      const retained = services.subscriptions.retained;
      return { ...metrics.snapshot(), threadsLoaded: logs.size, reviewQueueSubscribers: reviews.queues.size, presence: presence.counts(), retainedSubscriptions: retained.count, retainedSubscriptionBytes: retained.bytes };
    },
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
      const bound = address.family === "IPv6" ? `[${address.address}]` : address.address;
      const wildcard = address.address === "0.0.0.0" || address.address === "::";
      origins.loopbackOnly = isLoopbackHost(address.address);
      // The URL a client on this machine uses: a wildcard bind is reached through loopback.
      const host = wildcard ? (address.family === "IPv6" ? "[::1]" : "127.0.0.1") : bound;
      logger.info(`listening on http://${bound}:${port}${wildcard ? " (all interfaces)" : ""} (${storage.path ?? "in-memory storage"}; assistants: ${assistants.list().map((a) => a.id).join(", ")})`);
      if (!origins.loopbackOnly) {
        const open = auth.mode === "open" ? " IN OPEN DEV MODE: anyone who can reach it can start, cancel and answer every run" : "";
        logger.warn(`!!! listening on ${bound}: reachable from other machines${open}. Unset HOST to listen on 127.0.0.1 only. !!!`);
      }
      return { port, url: `http://${host}:${port}` };
    },
    async close() {
      if (closed) return;
      closed = true;
      await sweeper?.stop();
      await rowSweeper.stop();
      reviews.close();
      threadWatch.close();
      await runs.close();
      await webhooks.close();
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
      await logs.close();
      await storage.reviews.close();
      await storage.store.close();
      await storage.items.close();
      await storage.webhooks.close();
      await storage.linkUses.close();
      await storage.close();
    },
  };
  internals.set(hub, services);
  return hub;
}

/** createHub + start, for scripts and tests. */
export async function startHub(config: HubConfig = {}): Promise<Hub & { port: number; url: string }> {
  const hub = await createHub(config);
  try {
    const address = await hub.start();
    return Object.assign(hub, address);
  } catch (error) {
    // Port in use, say: give the data dir back before reporting it.
    await hub.close();
    throw error;
  }
}
