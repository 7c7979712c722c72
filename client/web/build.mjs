#!/usr/bin/env node
/**
 * Builds the web app into client/web/dist when it is missing or older than
 * its sources (the app, the SDK and hub/protocol it bundles, the lockfile).
 * `npm start` runs it first; `--force` always builds.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = join(here, "..", "..");
const stamp = join(here, "dist", ".built");
const SOURCES = [join(here, "src"), join(here, "index.html"), join(here, "vite.config.ts"), join(repo, "client"), join(repo, "hub", "protocol"), join(repo, "package-lock.json")];

function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let max = 0;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "dist" || entry === "cli") continue;
    max = Math.max(max, newest(join(path, entry)));
  }
  return max;
}

const force = process.argv.includes("--force");
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const changed = Math.max(...SOURCES.map(newest));
if (!force && built > changed) process.exit(0);

let vite;
try {
  vite = await import("vite");
} catch {
  console.error("[switchboard] cannot build the web app: vite is not installed (run `npm install`). The hub still starts; `/` explains.");
  process.exit(0);
}
const started = Date.now();
// Always the production build: Vite takes NODE_ENV from the environment, and a
// caller's "test" or "development" (vitest sets one) would bundle React's
// development build — four times the size, and slower.
process.env.NODE_ENV = "production";
await vite.build({ configFile: join(here, "vite.config.ts"), mode: "production", logLevel: "warn" });
writeFileSync(stamp, new Date().toISOString());
console.log(`[switchboard] built the web app in ${Date.now() - started} ms (client/web/dist)`);
