/**
 * npm run bench [-- --quick] [-- --only <suite|group>[,…]] [-- --runs N] [-- --out FILE]
 *
 * Runs the benchmark suites, prints the results tables and writes
 * docs/benchmarks.md. A partial (--only) or quick (--quick) run prints its
 * tables but writes a document only with --out, so it never replaces the
 * full run's table with fewer rows or fewer iterations.
 */
import { readFile, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { engineGroup } from "./engine/index.ts";
import { hubGroup } from "./hub/index.ts";
import { clusterGroup } from "./cluster/index.ts";
import { renderDocument, replaceWebSection, webSectionOf, type TableSection } from "./lib/document.ts";
import { machineInfo } from "./lib/machine.ts";
import { tableLines, type Row } from "./lib/report.ts";
import type { Suite, SuiteGroup } from "./suite.ts";
import { countWarnings, warningLines } from "./lib/warnings.ts";

const GROUPS: readonly SuiteGroup[] = [engineGroup, hubGroup, clusterGroup];
/** Groups of issue 7 that have no suites yet; the document says so. */
const PENDING: readonly string[] = [];

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DEFAULT_OUT = join(ROOT, "docs/benchmarks.md");

const USAGE = `usage: npm run bench -- [--quick] [--only <suite|group>[,…]] [--runs N] [--out FILE]
groups and suites: ${GROUPS.map((g) => `${g.name} (${g.suites.map((s) => s.name).join(", ")})`).join("; ")}`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string", multiple: true },
    runs: { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const only = new Set((args.only ?? []).flatMap((o) => o.split(",")).map((o) => o.trim()).filter(Boolean));
for (const name of only) {
  if (!GROUPS.some((g) => g.name === name || g.suites.some((s) => s.name === name))) fail(`unknown suite or group "${name}"`);
}
const selected = GROUPS.map((g) => ({ ...g, suites: only.size === 0 || only.has(g.name) ? g.suites : g.suites.filter((s) => only.has(s.name)) })).filter(
  (g) => g.suites.length > 0,
);
const runs = args.runs === undefined ? (args.quick ? 3 : 5) : Number(args.runs);
if (!(Number.isInteger(runs) && runs > 0)) fail(`--runs must be a positive integer, got ${args.runs}`);
const out = args.out !== undefined ? resolve(args.out) : only.size === 0 && !args.quick ? DEFAULT_OUT : undefined;

countWarnings();

function commandLine(): string {
  const argv = process.argv.slice(2).join(" ");
  if (process.env.npm_lifecycle_event === "bench") return `npm run bench${argv ? ` -- ${argv}` : ""}`;
  return `npx tsx ${relative(ROOT, process.argv[1] ?? "test/bench/run.ts")}${argv ? ` ${argv}` : ""}`;
}

async function runSuite(suite: Suite): Promise<Row[] | undefined> {
  const t0 = performance.now();
  console.log(`\n▶ ${suite.name}${args.quick ? " (quick)" : ""}`);
  try {
    const rows = await suite.run({ quick: args.quick, runs, root: ROOT, log: (line) => console.log(`  ${line}`) });
    console.log(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return rows;
  } catch (error) {
    console.error(`  ✗ ${suite.name} failed:`, error);
    return undefined;
  } finally {
    // A suite can run as one long chain of microtasks; warnings are emitted on
    // process.nextTick, which waits for that chain, so let them through here.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const started = performance.now();
const startLoad = loadavg();
// Read before the run: other work may commit while it runs.
const machine = machineInfo(ROOT, [...new Set(selected.flatMap((g) => g.packages))]);
const date = new Date();
const sections: TableSection[] = [];
let failed = false;
for (const group of selected) {
  const rows: Row[] = [];
  for (const suite of group.suites) {
    const suiteRows = await runSuite(suite);
    if (suiteRows) rows.push(...suiteRows);
    else failed = true;
  }
  sections.push({ title: group.title, peer: group.peer, rows, notes: group.suites.flatMap((s) => s.notes) });
}
const warnings = warningLines();

for (const section of sections) console.log(`\n${section.title}\n${tableLines(section.rows, section.peer).join("\n")}`);
if (warnings.length > 0) console.log(`\nwarnings:\n${warnings.map((w) => `  ${w}`).join("\n")}`);
if (args.quick) {
  console.log("\nquick mode: 2-3 short runs per row, so a ratio near its threshold can land either side; the full run (npm run bench) is the one that decides a target.");
}

if (failed) {
  console.error("\nsome suites failed; no document written");
  process.exit(1);
}
if (!out) {
  console.log(`\n(${args.quick ? "--quick" : "--only"}: tables printed, document not written; pass --out FILE to write one)`);
} else {
  const document = renderDocument(
    machine,
    {
      command: commandLine(),
      date,
      runs,
      quick: args.quick,
      durationMs: performance.now() - started,
      loadAverage: { start: startLoad, end: loadavg() },
      warnings,
    },
    sections,
    PENDING,
  );
  // The web app's section comes from `npm run bench:web`: carried over, not dropped.
  const web = webSectionOf(await readFile(out, "utf8").catch(() => ""));
  await writeFile(out, web === "" ? document : replaceWebSection(document, web.split("\n").slice(1, -1).join("\n")));
  console.log(`\nwrote ${relative(process.cwd(), out)}`);
}
