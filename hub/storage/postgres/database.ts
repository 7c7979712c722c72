/**
 * The hub's Postgres connection: one `pg` pool shared by the checkpointer and
 * every hub store of a node, the hub's schema migrations (applied once even
 * when several nodes start together, see engine/checkpoint/postgres-schema.ts),
 * and `transaction()` for the decisions that read and write in one step.
 */
import pg from "pg";
import type { Pool, PoolClient, PoolConfig } from "pg";
import { migrate, quoteSchema } from "../../../engine/postgres.ts";
import { HUB_MIGRATIONS } from "./schema.ts";

export interface PostgresOptions {
  connectionString: string;
  /** Schema of every table (default "switchboard"); tests use one each. */
  schema?: string;
  poolConfig?: PoolConfig;
}

export class PostgresDatabase {
  readonly pool: Pool;
  readonly schema: string;
  /** The schema, quoted for SQL. */
  readonly q: string;
  #closed = false;

  /** Connects and migrates the hub's tables; the caller closes. */
  static async open(options: PostgresOptions): Promise<PostgresDatabase> {
    const schema = options.schema ?? "switchboard";
    const q = quoteSchema(schema);
    const pool = new pg.Pool({ max: 10, ...options.poolConfig, connectionString: options.connectionString });
    // A dropped idle connection (Postgres restarted) is not a crash: the next query reconnects.
    pool.on("error", () => {});
    const db = new PostgresDatabase(pool, schema, q);
    try {
      await migrate(pool, { schema, component: "hub", migrations: HUB_MIGRATIONS });
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  }

  private constructor(pool: Pool, schema: string, q: string) {
    this.pool = pool;
    this.schema = schema;
    this.q = q;
  }

  /** Runs `fn` in one transaction on one connection; rolls back when it throws. */
  async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // Lost while checked out, the connection emits 'error' on the client: without a listener that is an uncaught exception.
    client.on("error", ignoreLostConnection);
    try {
      await client.query("BEGIN");
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.off("error", ignoreLostConnection);
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}

/** SQLSTATE of a unique violation. */
export const UNIQUE_VIOLATION = "23505";

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === UNIQUE_VIOLATION;
}

/** The query under way (or the next one) fails with the cause; the pool drops the broken client on release. */
function ignoreLostConnection(): void {}
