/**
 * The README's code is real: its snippets are files in the repository, kept
 * identical by this test, and the ones that talk to a hub run against one.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");
const readme = read("README.md");

/** The body of a fenced block in the README that follows the given marker comment. */
function block(marker: string): string {
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no block after <!-- ${marker} -->`);
  return match[1];
}

it("the engine example is engine/examples/review.ts (with the package import path)", () => {
  expect(block("example:engine")).toBe(read("engine/examples/review.ts").replace('from "../index.ts"', 'from "switchboard/engine"'));
});

it("the LangGraph SDK example is client/examples/langgraph-sdk.ts, and it runs against the real hub", async () => {
  expect(block("example:langgraph-sdk")).toBe(read("client/examples/langgraph-sdk.ts"));
  const { startHub, silentLogger } = await import("../../hub/index.ts");
  const { reviewWithLangGraphSdk } = await import("../../client/examples/langgraph-sdk.ts");
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, demoTokenDelayMs: 0 });
  try {
    expect(await reviewWithLangGraphSdk(hub.url)).toMatchObject({ topic: "the release", decision: "ship it", finalize_calls: 1 });
  } finally {
    await hub.close();
  }
});

it("the SDK quick start is client/examples/quickstart.ts", () => {
  expect(block("example:client")).toBe(read("client/examples/quickstart.ts").replace('from "../index.ts"', 'from "switchboard/client"'));
});

it("the quick start is the CLI README's checked block (test/cli/quickstart.test.ts runs it)", () => {
  const cli = read("client/cli/README.md");
  const cliBlock = /<!-- quickstart -->\n```sh\n([\s\S]*?)```/.exec(cli)?.[1];
  expect(cliBlock).toBeDefined();
  expect(block("quickstart")).toBe(cliBlock);
});

it("the engine example runs as the README says (npx tsx engine/examples/review.ts)", async () => {
  const { execFile } = await import("node:child_process");
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile("npx", ["tsx", "engine/examples/review.ts"], { cwd: root, timeout: 60_000 }, (error, out) => (error ? reject(error) : resolve(out))),
  );
  expect(stdout).toContain("paused on:");
  expect(stdout).toContain("finalized (approve)");
  expect(stdout).toContain("decision: 'approve'");
}, 90_000);

it("links only to files inside the repository, and every one exists (README.md, docs/*.md)", async () => {
  const { existsSync, readdirSync } = await import("node:fs");
  const { dirname, join, relative, resolve } = await import("node:path");
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const files = ["README.md", "client/README.md", "client/cli/README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  const bad: string[] = [];
  for (const file of files) {
    const text = read(file);
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)|src="([^"]+)"|`(\.\.\/[^`\s]+)`/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
    for (const target of targets) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = resolve(dirname(join(root, file)), target.split("#")[0] ?? "");
      if (relative(root, path).startsWith("..") || !existsSync(path)) bad.push(`${file}: ${target}`);
    }
  }
  expect(bad).toEqual([]);
});

it("says how to point the CLI at a hub on another port (SWITCHBOARD_URL), and what a source build of better-sqlite3 needs", async () => {
  const { hubTarget } = await import("../../client/cli/args.ts");
  expect(hubTarget({}, { SWITCHBOARD_URL: "http://127.0.0.1:8790" }).url).toBe("http://127.0.0.1:8790");
  const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## From code"));
  expect(quickStart).toMatch(/SWITCHBOARD_URL/);
  const setUp = readme.slice(readme.indexOf("## Set-up"), readme.indexOf("## The web app"));
  for (const tool of ["python3", "make", "g++", "better-sqlite3"]) expect(setUp).toContain(tool);
});
