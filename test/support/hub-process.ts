/**
 * A real hub process for the tests whose subject is the process itself or an
 * attack on it from outside (bind address, origins, oversized bodies, paused
 * sockets): `hub/main.ts` (what `npm start` runs) or
 * test/support/hub-child.ts (the same with test assistants and limits from
 * `SWITCHBOARD_TEST_CONFIG`), on port 0, in a temporary data dir. Its lines
 * are collected; waits are on lines, never on time. Share one per file.
 *
 * The entry runs as one ES module bundled by esbuild from the sources as they
 * are now — the transform tsx applies file by file, done once per test worker
 * instead of in every process: a start costs about half the CPU of
 * `node --import tsx` (whose resolve and load hooks handle each of the hub's
 * modules again in every process), and the suite starts some 40 of them.
 * Packages stay external (loaded from node_modules as under tsx); stack
 * traces point into the TypeScript sources (inline source map).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENTRIES = { main: "hub/main.ts", child: "test/support/hub-child.ts" } as const;
const READY = /listening on (http:\/\/\S+)/;
// One level below the root, as hub/ is: a module's `new URL("../client/web/dist", import.meta.url)` finds the same dir.
const BUNDLES = join(ROOT, ".test-build");

interface Bundle {
  path: string;
  /** The source files in it, relative to the root. */
  inputs: string[];
  startedAt: number;
}
const bundles = new Map<keyof typeof ENTRIES, Promise<Bundle>>();

/** How test programs are bundled for Node: one ES module of our sources, the packages left to node_modules. */
export const NODE_BUNDLE = { bundle: true, platform: "node", format: "esm", target: "node20", packages: "external", logLevel: "error" } as const;

/**
 * The entry bundled: once per worker process, and again when one of its
 * sources changed since (watch mode). Calls queue on the one before, so
 * nodes started together share one build.
 */
function bundled(entry: keyof typeof ENTRIES): Promise<string> {
  const previous = bundles.get(entry);
  const next = (async (): Promise<Bundle> => {
    const cached = await previous?.catch(() => undefined);
    if (cached && cached.inputs.every((file) => statSync(join(ROOT, file)).mtimeMs < cached.startedAt)) return cached;
    const { build } = await import("esbuild");
    const startedAt = Date.now();
    mkdirSync(BUNDLES, { recursive: true });
    const path = join(BUNDLES, `${entry}.mjs`);
    // Written aside and renamed: another worker bundling at the same time never reads half a file.
    const partial = join(BUNDLES, `${entry}.${process.pid}.mjs`);
    const result = await build({
      entryPoints: [join(ROOT, ENTRIES[entry])],
      outfile: partial,
      absWorkingDir: ROOT,
      ...NODE_BUNDLE,
      sourcemap: "inline",
      metafile: true,
    });
    renameSync(partial, path);
    return { path, inputs: Object.keys(result.metafile.inputs), startedAt };
  })();
  bundles.set(entry, next);
  return next.then((b) => b.path);
}

export interface HubProcessOptions {
  entry?: keyof typeof ENTRIES;
  env?: Record<string, string>;
  /** For the child entry: limits and other JSON-able HubConfig fields. */
  config?: Record<string, unknown>;
  /** Resolve when the process has printed its ready line (default) or when it exits. */
  waitFor?: "ready" | "exit";
}

export class HubProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  /** The URL of the ready line; for a wildcard bind, what `url` a local client uses. */
  url = "";
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #dataDir: string;
  #waiters: Array<{ test: RegExp; resolve: (line: string) => void }> = [];

  private constructor(script: string, options: HubProcessOptions) {
    this.#dataDir = mkdtempSync(join(tmpdir(), "switchboard-proc-"));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: "0",
      SWITCHBOARD_DATA_DIR: this.#dataDir,
      SWITCHBOARD_TEST_CONFIG: JSON.stringify(options.config ?? {}),
      ...options.env,
    };
    for (const key of ["HOST", "SWITCHBOARD_JWT_SECRET", "SWITCHBOARD_ALLOWED_ORIGINS", "SWITCHBOARD_JWKS_URL"]) {
      if (!options.env || !(key in options.env)) delete env[key];
    }
    this.#child = spawn(process.execPath, ["--enable-source-maps", script], { cwd: ROOT, env, stdio: "pipe" });
    let partial = "";
    const onData = (chunk: string): void => {
      partial += chunk;
      const parts = partial.split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        this.lines.push(line);
        for (const w of this.#waiters.filter((w) => w.test.test(line))) {
          this.#waiters = this.#waiters.filter((x) => x !== w);
          w.resolve(line);
        }
      }
    };
    this.#child.stdout.setEncoding("utf8").on("data", onData);
    this.#child.stderr.setEncoding("utf8").on("data", onData);
    this.exited = new Promise((resolve) => this.#child.once("close", (code) => resolve(code)));
  }

  static async start(options: HubProcessOptions = {}): Promise<HubProcess> {
    const hub = new HubProcess(await bundled(options.entry ?? "main"), options);
    if (options.waitFor === "exit") {
      await hub.exited;
      return hub;
    }
    const line = await hub.waitFor(READY);
    const bound = READY.exec(line)?.[1] ?? "";
    const url = new URL(bound);
    if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
    if (url.hostname === "[::]") url.hostname = "[::1]";
    hub.url = url.origin;
    return hub;
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** The first line (of all printed) matching `test`, waiting for it; fails when the process exits first. */
  waitFor(test: RegExp): Promise<string> {
    const found = this.lines.find((l) => test.test(l));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      this.#waiters.push({ test, resolve });
      void this.exited.then((code) => reject(new Error(`hub exited (${code}) before printing ${String(test)}:\n${this.lines.join("\n")}`)));
    });
  }

  /** CPU time the process used so far (user + system), in ms, from /proc. */
  async cpuMs(): Promise<number> {
    const stat = await readFile(`/proc/${this.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  }

  /** One counter or gauge of GET /metrics. */
  async metric(name: string): Promise<number> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
  }

  get wsUrl(): string {
    return this.url.replace(/^http/, "ws");
  }

  /** kill -9: no shutdown code runs (the data dir stays, for a restart on it). */
  async kill(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGKILL");
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill("SIGTERM");
      await this.exited;
    }
    rmSync(this.#dataDir, { recursive: true, force: true });
  }
}
