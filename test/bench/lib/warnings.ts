/**
 * Process warnings, counted instead of printed each time: wide fan-outs trip
 * Node's MaxListeners warning (in both libraries). The bench counts its own,
 * and engine side processes hand theirs back with each measurement.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const counts = new Map<string, number>();

/** " (from <package or repo file:line>)": the first stack frame outside Node itself. */
function warningSource(stack: string): string {
  for (const line of stack.split("\n").slice(1)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(line);
    if (pkg) return ` (from ${pkg[1]})`;
    const at = line.indexOf(`${ROOT}/`);
    if (at >= 0) return ` (from ${/^[^:)]+:\d+/.exec(line.slice(at + ROOT.length + 1))?.[0] ?? "?"})`;
  }
  return "";
}

/** Counts this process's warnings from now on instead of printing them. */
export function countWarnings(): void {
  process.removeAllListeners("warning");
  process.on("warning", (w) => addWarnings({ [`${w.name}: ${w.message}${warningSource(w.stack ?? "")}`]: 1 }));
}

export function addWarnings(more: Readonly<Record<string, number>>): void {
  for (const [key, n] of Object.entries(more)) counts.set(key, (counts.get(key) ?? 0) + n);
}

/** The counts so far, and a fresh start (for a child handing its warnings back). */
export function takeWarnings(): Record<string, number> {
  const taken = Object.fromEntries(counts);
  counts.clear();
  return taken;
}

/** "<count>× <warning> (from …)" lines. */
export function warningLines(): string[] {
  return [...counts].map(([text, count]) => `${count}× ${text}`);
}
