/**
 * docs/engine.md is real: every `<!-- example:NAME -->` program in it runs
 * (with `switchboard/engine` pointed at this checkout's engine/index.ts) and
 * prints exactly the block shown after it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const doc = readFileSync(join(ROOT, "docs/engine.md"), "utf8");
const ENGINE = join(ROOT, "engine/index.ts");
const examples = [...doc.matchAll(/<!-- example:([\w-]+) -->\n```ts\n([\s\S]*?)```\n\nprints\n\n```text\n([\s\S]*?)```/g)].map((m) => ({ name: m[1] ?? "", code: m[2] ?? "", output: m[3] ?? "" }));
const dir = mkdtempSync(join(tmpdir(), "switchboard-engine-doc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/engine.md", () => {
  it("covers fan-out and join, Send, subgraphs, tools, getWriter and models, each as a program", () => {
    expect(examples.map((e) => e.name)).toEqual(["fanout", "send", "subgraph", "tools", "writer", "models"]);
    for (const { code } of examples) expect(code).toContain('from "switchboard/engine"');
    expect(doc.match(/<!-- example:/g)?.length).toBe(examples.length);
  });

  it.each(examples)("$name runs and prints what the page shows", async ({ name, code, output }) => {
    const file = join(dir, `${name}.mts`);
    writeFileSync(file, code.replaceAll('"switchboard/engine"', JSON.stringify(ENGINE)));
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ["--import", "tsx", file], { cwd: ROOT, timeout: 60_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out))),
    );
    expect(stdout).toBe(output);
  }, 90_000);
});
