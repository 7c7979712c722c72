/**
 * The layering rules (rules.ts) hold over engine/, hub/ and client/: a new
 * import circle, an engine import of the hub, a `ws` import outside hub/ws,
 * a database driver outside hub/storage, or a web component that reaches past
 * the SDK fails `npm test` here. The web app's .tsx components are read too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { checkLayers, describeViolations } from "./cruise.ts";

const fixtures: string[] = [];
afterAll(() => {
  for (const dir of fixtures) rmSync(dir, { recursive: true, force: true });
});

/** A small tree of files (path → source) in a temp dir. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "sb-layers-"));
  fixtures.push(dir);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

it("the source tree follows the layering rules", async () => {
  const { modules, imports, violations } = await checkLayers();
  expect(modules).toBeGreaterThan(150); // the cruise saw the tree, not an empty folder
  // The web components are parsed (JSX and all) and their imports seen.
  expect(imports.get("client/web/src/views/inbox.tsx")).toEqual(expect.arrayContaining(["client/index.ts", "client/web/src/hub.tsx"]));
  expect(describeViolations(violations)).toEqual([]);
}, 60_000);

it("a web component that reaches past the SDK, or into Node, is a violation", async () => {
  const dir = tree({
    "hub/protocol/index.ts": "export const WIRE = 1;\n",
    "hub/runs/run-manager.ts": "export const RUNS = 1;\n",
    "client/index.ts": "export { WIRE } from '../hub/protocol/index.ts';\n",
    "client/connection.ts": "export const CONN = 1;\n",
    "client/web/src/ok.tsx": "import { WIRE } from '../../index.ts';\nexport const Ok = () => <p>{WIRE}</p>;\n",
    "client/web/src/bad.tsx": [
      "import { RUNS } from '../../../hub/runs/run-manager.ts';",
      "import { CONN } from '../../connection.ts';",
      "import { readFileSync } from 'node:fs';",
      "export const Bad = () => <p title={String(readFileSync)}>{RUNS + CONN}</p>;",
      "",
    ].join("\n"),
  });
  const { violations } = await checkLayers(["client", "hub"], dir);
  expect(describeViolations(violations).sort()).toEqual([
    "sdk-speaks-protocol: client/web/src/bad.tsx → hub/runs/run-manager.ts",
    "web-app-runs-in-the-browser: client/web/src/bad.tsx → fs",
    "web-app-uses-the-sdk: client/web/src/bad.tsx → client/connection.ts",
  ]);
}, 60_000);
