/**
 * The bench's persistent child processes (hub servers and clients, engine sides): `node --import tsx <script>` with an IPC
 * channel. The parent sends `{ id, op, ...args }` and awaits `{ id, ok, value | error }`;
 * every request has a time bound, and a child is killed (by its pid) when the
 * suite is done with it or when it outlives its bound.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";

export class BenchChild {
  readonly #child: ChildProcess;
  readonly #name: string;
  #next = 1;
  readonly #waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  #stderr = "";
  #exited: string | undefined;
  /** What the child's init returned. */
  ready: unknown;

  private constructor(child: ChildProcess, name: string) {
    this.#child = child;
    this.#name = name;
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      this.#stderr = (this.#stderr + d).slice(-4000);
    });
    // Profiling aid: BENCH_CHILD_STDOUT=/tmp/x keeps each child's stdout (e.g. --trace-gc) in /tmp/x.<name>.log.
    const keep = process.env["BENCH_CHILD_STDOUT"];
    if (keep) child.stdout?.pipe(createWriteStream(`${keep}.${name.replace(/\W+/g, "-")}.log`));
    else child.stdout?.resume();
    child.on("message", (raw) => {
      const msg = raw as { id: number; ok: boolean; value?: unknown; error?: string };
      const w = this.#waiting.get(msg.id);
      if (!w) return;
      this.#waiting.delete(msg.id);
      clearTimeout(w.timer);
      if (msg.ok) w.resolve(msg.value);
      else w.reject(new Error(`${this.#name}: ${msg.error}`));
    });
    child.on("error", () => {});
    child.on("exit", (code, signal) => {
      this.#exited = `exited (${code ?? signal})`;
      for (const [, w] of this.#waiting) {
        clearTimeout(w.timer);
        w.reject(new Error(`${this.#name} ${this.#exited}: ${this.#stderr.trim().slice(-1500)}`));
      }
      this.#waiting.clear();
    });
  }

  /** Starts the child and waits for its `{ id: 0 }` ready message. */
  static async start(script: string, args: readonly string[], options: { cwd: string; name: string; nodeFlags?: readonly string[]; timeoutMs?: number }): Promise<BenchChild> {
    const child = fork(script, [...args], {
      cwd: options.cwd,
      execArgv: [...(options.nodeFlags ?? []), "--import", "tsx"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      serialization: "advanced",
    });
    const bench = new BenchChild(child, options.name);
    bench.ready = await bench.#await(0, options.timeoutMs ?? 60_000, "start");
    // An idle child does not keep the bench alive (a pending request's timer does);
    // when the bench exits, the child sees the IPC channel close and exits too.
    child.unref();
    for (const handle of [child.channel, child.stdout, child.stderr] as Array<{ unref?: () => void } | null | undefined>) handle?.unref?.();
    return bench;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  #await(id: number, timeoutMs: number, what: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.#exited) return reject(new Error(`${this.#name} ${this.#exited}: ${this.#stderr.trim().slice(-1500)}`));
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`${this.#name}: ${what} took longer than ${timeoutMs} ms; stderr: ${this.#stderr.trim().slice(-1000)}`));
      }, timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
    });
  }

  request<T>(op: string, args: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<T> {
    const id = this.#next++;
    const reply = this.#await(id, timeoutMs, op);
    if (!this.#exited) this.#child.send({ id, op, ...args }, (error) => error && this.#waiting.get(id)?.reject(error));
    return reply as Promise<T>;
  }

  /** Kills this child (by its own pid) and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.#exited) return;
    const gone = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#child.kill("SIGKILL");
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
  }
}

type Handler = (msg: Record<string, unknown>) => Promise<unknown> | unknown;

/** In a child: answers the parent's requests with `handlers[op]`; says ready (id 0) after `init`. */
export function serveParent(handlers: Record<string, Handler>, init?: () => Promise<unknown>): void {
  const send = (m: unknown): void => {
    process.send?.(m);
  };
  process.on("message", (raw) => {
    const msg = raw as { id: number; op: string } & Record<string, unknown>;
    const handler = handlers[msg.op];
    if (!handler) return send({ id: msg.id, ok: false, error: `unknown op ${msg.op}` });
    Promise.resolve()
      .then(() => handler(msg))
      .then(
        (value) => send({ id: msg.id, ok: true, value }),
        (error: unknown) => send({ id: msg.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
  });
  // The parent going away ends the child too: no orphans.
  process.on("disconnect", () => process.exit(0));
  Promise.resolve(init?.()).then(
    (value) => send({ id: 0, ok: true, value }),
    (error: unknown) => {
      send({ id: 0, ok: false, error: String(error) });
      process.exit(1);
    },
  );
}

/** Wall clock with sub-millisecond resolution, comparable across processes on one machine. */
export const wallNow = (): number => performance.timeOrigin + performance.now();
