/**
 * A redis-server of a test's own, on a free loopback port, that the test may
 * stop and start again (fault tests: the machine's shared Redis must never be
 * stopped). No persistence unless asked: a restart comes back empty, as a
 * Redis without persistence does after a crash. Waits on its log lines, never
 * on time.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const READY = /Ready to accept connections/;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class RedisServer {
  readonly port: number;
  readonly #dir: string;
  readonly #persist: boolean;
  #child: ChildProcess | undefined;

  private constructor(port: number, persist: boolean) {
    this.port = port;
    this.#persist = persist;
    this.#dir = mkdtempSync(join(tmpdir(), "switchboard-redis-"));
  }

  /** Starts one; `persist` keeps its data over stop/start (an append-only file in its own dir). */
  static async start(options: { persist?: boolean } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), options.persist ?? false);
    await server.resume();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** (Re)starts it on the same port. */
  async resume(): Promise<void> {
    if (this.#child) return;
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.#dir, "--save", "", "--appendonly", this.#persist ? "yes" : "no"];
    const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    this.#child = child;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (READY.test(output)) resolve();
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
      child.once("error", reject);
    });
  }

  /** Stops it at once (SIGKILL: what a crashed or unreachable Redis looks like to its clients). */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
  }

  /** Stops it and removes its files. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
