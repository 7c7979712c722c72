/** Runs the layering rules over the source folders and lists the violations. */
import { cruise, type IViolation } from "dependency-cruiser";
import { RULES } from "./rules.ts";

export const SOURCE_FOLDERS = ["engine", "hub", "client"];

export interface Verdict {
  modules: number;
  violations: IViolation[];
}

export async function checkLayers(folders: string[] = SOURCE_FOLDERS): Promise<Verdict> {
  const result = await cruise(folders, {
    validate: true,
    ruleSet: { forbidden: RULES },
    parser: "swc",
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    // .tsx (the web app's components) is left to the type checker: swc here parses TypeScript without JSX.
    exclude: { path: "(^|/)dist/|\\.tsx$" },
  });
  if (typeof result.output === "string") throw new Error("dependency-cruiser returned text, expected JSON");
  return { modules: result.output.modules.length, violations: result.output.summary.violations };
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
