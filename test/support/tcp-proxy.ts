/**
 * A TCP proxy on a free loopback port in front of a service (the machine's
 * Postgres), that a fault test can cut — every open connection is destroyed
 * and new ones are refused, as when the database is down or the network to
 * it is gone — and restore, on the same port. The shared service itself is
 * never touched.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.restore();
    return proxy;
  }

  /** A URL like `url` whose host and port are the proxy's. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Accepts connections again (on the same port). */
  async restore(): Promise<void> {
    if (this.#server) return;
    const server = createServer((client) => {
      const upstream = createConnection(this.#target);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (typeof address === "object" && address !== null) this.port = address.port;
  }

  /** Destroys every connection through it and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
