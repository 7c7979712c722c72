#!/usr/bin/env node
// The `switchboard` bin. In the installed package it runs the compiled CLI
// (dist/, built by `npm run build` on prepare/pack). In a source checkout —
// main.ts sits beside this file, and the package does not ship sources — it
// runs the TypeScript sources under tsx, so `npx switchboard` in the repo is
// always the code you are editing, never a stale build.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("./main.ts", import.meta.url);
let cli;
if (existsSync(fileURLToPath(source))) {
  const { register } = await import("tsx/esm/api");
  register();
  cli = await import(source.href);
} else {
  cli = await import(new URL("../../dist/client/cli/main.js", import.meta.url).href);
}
await cli.runProcess();
