/**
 * hub/storage: the adapters of the hub's ports, chosen here from the
 * configuration and nowhere else — an engine checkpointer, the hub store
 * (thread and run records) and the review store, in memory or in one SQLite
 * file shared by all three; with several nodes (`cluster`), all of them in
 * Postgres plus run leases there, and the event bus on Redis.
 *
 * With a data dir, the dir's lock (sqlite/lock.ts) is taken first, before any
 * file there is read: a second hub on the same dir fails here with
 * DataDirInUseError and has changed nothing. The lock is released last, after
 * the database is closed.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { MemorySaver, type Checkpointer } from "../../engine/checkpoint/index.ts";
import { SqliteSaver } from "../../engine/checkpoint/sqlite.ts";
import { PostgresSaver } from "../../engine/postgres.ts";
import type { ClusterConfig } from "../cluster-config.ts";
import { DB_FILE_NAME } from "../config.ts";
import type { ReviewStore } from "../review/index.ts";
import type { ItemStore } from "../store/index.ts";
import type { WebhookOutbox } from "../review/webhooks/outbox.ts";
import type { LinkUses } from "../review/links/uses.ts";
import type { HubStore, RunLeases } from "../runs/index.ts";
import type { EventBus } from "../threads/index.ts";
import { MemoryHubStore, MemoryItemStore, MemoryLinkUses, MemoryReviewStore, MemoryWebhookOutbox } from "./memory/index.ts";
import { PostgresDatabase } from "./postgres/database.ts";
import { PostgresHubStore } from "./postgres/hub-store.ts";
import { PostgresItemStore } from "./postgres/item-store.ts";
import { PostgresReviewStore } from "./postgres/review-store.ts";
import { PostgresRunLeases } from "./postgres/run-leases.ts";
import { PostgresWebhookOutbox } from "./postgres/webhook-outbox.ts";
import { PostgresLinkUses } from "./postgres/link-uses.ts";
import { RedisEventBus, redactUrl } from "./redis/event-bus.ts";
import { RedisSubscriptions } from "./redis/subscriptions.ts";
import type { SharedSubscriptions } from "../sessions/directory.ts";
import { SqliteHubStore, SqliteItemStore, SqliteLinkUses, SqliteReviewStore, SqliteWebhookOutbox, lockDataDir, openHubDatabase } from "./sqlite/index.ts";

export { DataDirInUseError } from "./sqlite/index.ts";

export interface Storage {
  checkpointer: Checkpointer;
  store: HubStore;
  reviews: ReviewStore;
  /** The LangGraph API's store (long-term memory items). */
  items: ItemStore;
  /** Webhook deliveries not yet delivered or given up (and their attempts). */
  webhooks: WebhookOutbox;
  /** Answer links already used (their nonces). */
  linkUses: LinkUses;
  /** Several nodes: the leases runs hold. */
  leases?: RunLeases;
  /** Several nodes with Redis: the event bus. */
  bus?: EventBus;
  /** Several nodes with Redis: the subscriptions every node can restore. */
  subscriptions?: SharedSubscriptions;
  close: () => Promise<void>;
  /** Where the data lives, for the ready line (no secrets). */
  path: string | null;
}

export interface StorageOptions {
  dataDir: string | null;
  cluster?: ClusterConfig | undefined;
  /** Several nodes: the lease token of each thread this node runs (the checkpoint writes' fence). */
  fences?: ReadonlyMap<string, number>;
  /** Entries the bus keeps per thread for replay. */
  replayCapacity?: number;
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.cluster) return openCluster(options.cluster, options);
  const { dataDir } = options;
  if (dataDir === null) {
    return { checkpointer: new MemorySaver(), store: new MemoryHubStore(), reviews: new MemoryReviewStore(), items: new MemoryItemStore(), webhooks: new MemoryWebhookOutbox(), linkUses: new MemoryLinkUses(), close: async () => {}, path: null };
  }
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    const path = join(lock.dir, DB_FILE_NAME);
    const db = openHubDatabase(path);
    const close = async (): Promise<void> => {
      db.close();
      lock.release();
    };
    // The adapters adopt the one connection and leave it open on close(): we close it last.
    return { checkpointer: new SqliteSaver(db), store: new SqliteHubStore(db), reviews: new SqliteReviewStore(db), items: new SqliteItemStore(db), webhooks: new SqliteWebhookOutbox(db), linkUses: new SqliteLinkUses(db), close, path };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function openCluster(cluster: ClusterConfig, options: StorageOptions): Promise<Storage> {
  const db = await PostgresDatabase.open({ connectionString: cluster.databaseUrl, ...(cluster.schema === undefined ? {} : { schema: cluster.schema }) });
  const fences = options.fences;
  try {
    const checkpointer = await PostgresSaver.open({
      pool: db.pool,
      schema: db.schema,
      // A write for a thread this node runs must still hold its lease (a fenced node writes nothing).
      ...(fences === undefined
        ? {}
        : {
            async writeGuard(threadId, query) {
              const token = fences.get(threadId);
              if (token !== undefined) await PostgresRunLeases.guard(query, db.q, threadId, token);
            },
          }),
    });
    const bus = cluster.redisUrl === undefined
      ? undefined
      : await RedisEventBus.connect({
          url: cluster.redisUrl,
          ...(cluster.redisPrefix === undefined ? {} : { prefix: cluster.redisPrefix }),
          ...(options.replayCapacity === undefined ? {} : { maxLen: options.replayCapacity }),
        });
    const subscriptions = cluster.redisUrl === undefined
      ? undefined
      : await RedisSubscriptions.connect({ url: cluster.redisUrl, ...(cluster.redisPrefix === undefined ? {} : { prefix: cluster.redisPrefix }) });
    const where = `postgres ${redactUrl(cluster.databaseUrl)} schema ${db.schema}${cluster.redisUrl === undefined ? "" : `, redis ${redactUrl(cluster.redisUrl)}`}`;
    return {
      checkpointer,
      store: await PostgresHubStore.open(db),
      reviews: new PostgresReviewStore(db),
      items: await PostgresItemStore.open(db),
      webhooks: new PostgresWebhookOutbox(db),
      linkUses: new PostgresLinkUses(db),
      leases: new PostgresRunLeases(db),
      ...(bus === undefined ? {} : { bus }),
      ...(subscriptions === undefined ? {} : { subscriptions }),
      close: async () => {
        subscriptions?.close();
        await bus?.close();
        await db.close();
      },
      path: where,
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
