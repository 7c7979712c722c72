/** Runs the layering rules over the source folders and lists the violations. */
import { createRequire } from "node:module";
import { cruise, type IViolation } from "dependency-cruiser";
import { RULES } from "./rules.ts";

/**
 * dependency-cruiser 17 parses every TypeScript file with swc's `syntax:
 * "typescript"` and no `tsx` flag, so JSX in the web app's .tsx components
 * is a parse error (its 18th major sets `tsx: true` per file name, but needs
 * Node 22; this project runs on 20, and TypeScript 7 has no JS API for its
 * `tsc` parser). It calls swc through the package's exports object, so the
 * same flag is set here for .tsx / .jsx files, and every file is checked.
 */
type ParseFileSync = (path: string, options: Record<string, unknown>) => unknown;
const swc = createRequire(import.meta.url)("@swc/core") as { parseFileSync: ParseFileSync & { jsxAware?: true } };
if (!swc.parseFileSync.jsxAware) {
  const parseFileSync = swc.parseFileSync.bind(swc);
  swc.parseFileSync = Object.assign((path: string, options: Record<string, unknown>) => parseFileSync(path, /\.[jt]sx$/.test(path) ? { ...options, tsx: true } : options), {
    jsxAware: true as const,
  });
}

export const SOURCE_FOLDERS = ["engine", "hub", "client"];

export interface Verdict {
  modules: number;
  /** Each module the cruise read, with what it imports (paths relative to the base dir). */
  imports: Map<string, string[]>;
  violations: IViolation[];
}

/** `baseDir`: the tree to check (the repository by default; tests check small fixture trees). */
export async function checkLayers(folders: string[] = SOURCE_FOLDERS, baseDir?: string): Promise<Verdict> {
  const result = await cruise(folders, {
    ...(baseDir === undefined ? {} : { baseDir }),
    validate: true,
    ruleSet: { forbidden: RULES },
    parser: "swc",
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)dist/" },
  });
  if (typeof result.output === "string") throw new Error("dependency-cruiser returned text, expected JSON");
  const { modules, summary } = result.output;
  return { modules: modules.length, imports: new Map(modules.map((m) => [m.source, m.dependencies.map((d) => d.resolved)])), violations: summary.violations };
}

export function describeViolation(v: IViolation): string {
  const path = v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(" → ") : `${v.from} → ${v.to}`;
  return `${v.rule.name}: ${path}`;
}

/** The violations, one line each; a circle is reported once, not once per module on it. */
export function describeViolations(violations: IViolation[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const v of violations) {
    const key = v.cycle ? `${v.rule.name}:${[v.from, ...v.cycle.map((c) => c.name)].sort().join(",")}` : `${v.rule.name}:${v.from}:${v.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(describeViolation(v));
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { modules, violations } = await checkLayers();
  for (const line of describeViolations(violations)) console.log(line);
  console.log(`${modules} modules, ${violations.length} violation(s)`);
  process.exitCode = violations.length === 0 ? 0 : 1;
}
