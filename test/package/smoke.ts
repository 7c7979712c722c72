/**
 * The package as a new user gets it, from the tarball (not the repository):
 * `npm pack`, then for a CommonJS and an ES module project each —
 * `npm init -y`, `npm install <tarball>`, the user's `switchboard.config.ts`
 * (test/package/project) served by `npx switchboard serve`, and a plain
 * `client.js` on `switchboard/client` that starts a run, reads its state at
 * the interrupt, answers and reads the final state. The config is also type
 * checked against the package's .d.ts files, and `/` must serve the web app
 * built into the package.
 *
 * Run by CI after `npm test` (`npm run test:package`); exits non-zero on the
 * first failure with what the processes printed.
 *
 * Native module: npm installs better-sqlite3 with `--ignore-scripts`, and the
 * binding the repository's own install compiled (same version, same Node) is
 * copied in, so CI does not compile SQLite twice. SMOKE_NATIVE=build compiles
 * it in the project instead (`npm rebuild better-sqlite3`, minutes on a small machine).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PROJECT = fileURLToPath(new URL("./project/", import.meta.url));
const WAIT_MS = 120_000;
const started = Date.now();

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function log(message: string): void {
  console.log(`smoke [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

function fail(message: string, result?: Result): never {
  const printed = result ? `\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}` : "";
  throw new Error(`${message}${printed}`);
}

/** Runs a command to its end; fails unless it exits 0. */
function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const result: Result = { code: null, stdout: "", stderr: "" };
    child.stdout.on("data", (c: Buffer) => (result.stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (result.stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), WAIT_MS * 3);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      result.code = code;
      if (code === 0) resolve(result);
      else {
        try {
          fail(`${command} ${args.join(" ")} (in ${cwd}) exited ${code}`, result);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
  });
}

/**
 * A long-running command in its own process group, whose stdout we wait on.
 * Signals go to the whole group: `npx` does not forward them to the bin it started.
 */
class Server {
  readonly result: Result = { code: null, stdout: "", stderr: "" };
  /** Resolves when the group's processes have all closed their output. */
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  #closed = false;

  constructor(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
    this.#child = spawn(command, [...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    this.#child.stdout?.on("data", (c: Buffer) => (this.result.stdout += c.toString()));
    this.#child.stderr?.on("data", (c: Buffer) => (this.result.stderr += c.toString()));
    this.exited = new Promise((resolve) =>
      this.#child.once("close", (code) => {
        this.#closed = true;
        this.result.code = code;
        resolve(code);
      }),
    );
  }

  /** The first match of `pattern` in stdout; fails if the process exits first or after WAIT_MS. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    const deadline = Date.now() + WAIT_MS;
    let exited = false;
    void this.exited.then(() => (exited = true));
    for (;;) {
      const match = pattern.exec(this.result.stdout);
      if (match) return match;
      if (exited) fail(`exited before printing ${pattern}`, this.result);
      if (Date.now() > deadline) fail(`no ${pattern} within ${WAIT_MS / 1000}s`, this.result);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Signals the whole group, unless all of it has ended (closed its output). */
  signal(signal: NodeJS.Signals): void {
    const pid = this.#child.pid;
    if (pid === undefined || this.#closed) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  }

}

/** `npm pack` of the repository (its `prepare` builds dist/); the tarball's path. */
async function pack(into: string): Promise<string> {
  await run("npm", ["pack", "--pack-destination", into], ROOT);
  const tarball = readdirSync(into).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) fail(`npm pack left no tarball in ${into}`);
  return join(into, tarball);
}

/** A fresh `npm init -y` project with the tarball installed. */
async function project(dir: string, type: "commonjs" | "module", tarball: string): Promise<void> {
  mkdirSync(dir);
  await run("npm", ["init", "-y"], dir);
  if (type === "module") await run("npm", ["pkg", "set", "type=module"], dir);
  const native = process.env["SMOKE_NATIVE"] === "build";
  await run("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline", ...(native ? [] : ["--ignore-scripts"])], dir);
  if (!native) copyBinding(dir);
  copyFileSync(join(PROJECT, "switchboard.config.ts"), join(dir, "switchboard.config.ts"));
  copyFileSync(join(PROJECT, type === "module" ? "client.mjs" : "client.cjs"), join(dir, "client.js"));
}

/** better-sqlite3's compiled binding from the repository's install, if it is the same version. */
function copyBinding(dir: string): void {
  const version = (root: string): string => (JSON.parse(readFileSync(join(root, "node_modules/better-sqlite3/package.json"), "utf8")) as { version: string }).version;
  const binding = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
  if (!existsSync(join(ROOT, binding))) fail(`${binding} is missing in the repository: run npm ci there first (or SMOKE_NATIVE=build)`);
  if (version(ROOT) !== version(dir)) fail(`better-sqlite3 ${version(dir)} in the project, ${version(ROOT)} in the repository: use SMOKE_NATIVE=build`);
  mkdirSync(join(dir, "node_modules/better-sqlite3/build/Release"), { recursive: true });
  copyFileSync(join(ROOT, binding), join(dir, binding));
}

/** The user's config, type checked against the installed .d.ts files (no skipLibCheck). */
async function typecheck(dir: string): Promise<void> {
  const tsconfig = {
    compilerOptions: { module: "nodenext", target: "es2023", strict: true, noEmit: true, skipLibCheck: false, types: ["node"], typeRoots: [join(ROOT, "node_modules/@types")] },
    files: ["switchboard.config.ts"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  await run(join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], dir);
}

/** The built web app ships in the package: `/` is its page, and the script it loads is there. */
async function webApp(url: string, label: string): Promise<void> {
  const page = await fetch(`${url}/`);
  const html = await page.text();
  const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  if (page.status !== 200 || script === undefined) fail(`${label}: / is not the built web app (${page.status}): ${html.slice(0, 300)}`);
  const asset = await fetch(`${url}${script}`);
  const bytes = (await asset.arrayBuffer()).byteLength;
  if (asset.status !== 200 || bytes === 0) fail(`${label}: ${script} answered ${asset.status} with ${bytes} bytes`);
  log(`${label}: GET / → the web app (${script}, ${bytes} bytes)`);
}

type Step = { step: string; values?: Record<string, unknown>; payload?: unknown; next?: unknown };

/** `npx switchboard serve` with the config, the client against it, then SIGTERM. */
async function serveAndTalk(dir: string, label: string): Promise<void> {
  const serve = new Server("npx", ["switchboard", "serve", "--port", "0", "--memory"], dir, { SWITCHBOARD_JWT_SECRET: "" });
  try {
    const ready = await serve.waitFor(/switchboard hub ready at (http:\/\/\S+) \(assistants: (.*)\)/);
    const [, url = "", assistants] = ready;
    if (assistants !== "greeter") fail(`${label}: the hub serves ${assistants}, not the config's greeter`, serve.result);
    log(`${label}: npx switchboard serve → ${url} (assistants: ${assistants})`);
    await webApp(url, label);

    const client = await run("node", ["client.js", url], dir);
    const steps = client.stdout.trim().split("\n").map((line) => JSON.parse(line) as Step);
    for (const s of steps) log(`${label}: client.js ${JSON.stringify(s)}`);
    const [interrupted, completed, state] = steps;
    const greeting = "hello, smoke";
    if (interrupted?.step !== "interrupted" || interrupted.values?.["greeting"] !== greeting) fail(`${label}: no interrupt after greet`, client);
    if (JSON.stringify(interrupted.payload) !== JSON.stringify({ kind: "approve", greeting })) fail(`${label}: unexpected interrupt payload`, client);
    if (completed?.step !== "completed" || JSON.stringify(completed.values?.["approved"]) !== '{"approve":true}') fail(`${label}: the run did not complete with the answer`, client);
    if (state?.step !== "state" || state.values?.["greeting"] !== greeting || JSON.stringify(state.next) !== "[]") fail(`${label}: the hub's state is not the final one`, client);

    // SIGTERM to npx and the bin it runs: the hub shuts down in order and every process ends.
    serve.signal("SIGTERM");
    await serve.exited;
    if (!serve.result.stderr.includes("shutting down…")) fail(`${label}: serve did not shut down on SIGTERM`, serve.result);
    // Two copies of a module (the config's and the hub's) would show here first: yjs warns on a second import.
    if (/already imported/i.test(serve.result.stderr)) fail(`${label}: a module was loaded twice`, serve.result);
    log(`${label}: SIGTERM → "shutting down…", all processes ended`);
  } finally {
    serve.signal("SIGKILL");
    await serve.exited;
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "switchboard-smoke-"));
  try {
    const tarball = await pack(work);
    log(`packed ${tarball}`);
    for (const type of ["commonjs", "module"] as const) {
      const dir = join(work, type);
      await project(dir, type, tarball);
      log(`${type}: npm init -y${type === "module" ? " (type: module)" : ""}; npm install <tarball>`);
      await typecheck(dir);
      log(`${type}: switchboard.config.ts type checks against the package's .d.ts`);
      await serveAndTalk(dir, type);
    }
    log("ok");
  } finally {
    if (process.env["SMOKE_KEEP"] === "1") log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
