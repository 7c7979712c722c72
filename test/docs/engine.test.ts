/**
 * docs/engine.md is real: every `<!-- example:NAME -->` program in it runs
 * (with `switchboard/engine` pointed at this checkout's engine/index.ts) and
 * prints exactly the block shown after it. Each runs as its own Node process,
 * bundled by esbuild — the transform tsx would apply, done once for the six
 * programs instead of in every process (test/support/hub-process.ts does the same).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE_BUNDLE } from "../support/hub-process.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const doc = readFileSync(join(ROOT, "docs/engine.md"), "utf8");
const ENGINE = join(ROOT, "engine/index.ts");
const examples = [...doc.matchAll(/<!-- example:([\w-]+) -->\n```ts\n([\s\S]*?)```\n\nprints\n\n```text\n([\s\S]*?)```/g)].map((m) => ({ name: m[1] ?? "", code: m[2] ?? "", output: m[3] ?? "" }));
const dir = mkdtempSync(join(tmpdir(), "switchboard-engine-doc-"));
const out = join(ROOT, ".test-build", `engine-doc-${process.pid}`);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

beforeAll(async () => {
  for (const { name, code } of examples) writeFileSync(join(dir, `${name}.mts`), code.replaceAll('"switchboard/engine"', JSON.stringify(ENGINE)));
  await build({
    entryPoints: examples.map(({ name }) => join(dir, `${name}.mts`)),
    // Inside the repository, so that the programs' packages resolve from its node_modules.
    outdir: out,
    outExtension: { ".js": ".mjs" },
    absWorkingDir: ROOT,
    ...NODE_BUNDLE,
  });
});

describe("docs/engine.md", () => {
  it("covers fan-out and join, Send, subgraphs, tools, getWriter and models, each as a program", () => {
    expect(examples.map((e) => e.name)).toEqual(["fanout", "send", "subgraph", "tools", "writer", "models"]);
    for (const { code } of examples) expect(code).toContain('from "switchboard/engine"');
    expect(doc.match(/<!-- example:/g)?.length).toBe(examples.length);
  });

  it.each(examples)("$name runs and prints what the page shows", async ({ name, output }) => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [join(out, `${name}.mjs`)], { cwd: ROOT, timeout: 60_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out))),
    );
    expect(stdout).toBe(output);
  }, 90_000);
});
