/**
 * Summarizes a V8 CPU profile: self time per function, with positions mapped
 * back to the TypeScript source through the source maps tsx registers.
 */
import { findSourceMap } from "node:module";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The parts of the DevTools Profile type used here. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }>;
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  fn: string;
  /** "path:line" relative to the root, or a V8 pseudo-frame like "(garbage collector)". */
  where: string;
  ms: number;
  share: number;
}

function location(url: string, line: number, column: number, root: string): string {
  if (url === "") return "";
  let file = url;
  let at = line + 1;
  const map = findSourceMap(url);
  const entry = map?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    file = entry.originalSource;
    at = entry.originalLine + 1;
  }
  if (file.startsWith("file://")) file = fileURLToPath(file);
  const rel = relative(root, file);
  return `${rel.startsWith("..") ? file : rel}:${at}`;
}

/** Self time by function, largest first. */
export function selfTimes(profile: CpuProfile, root: string): SelfTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time before sample i; attribute it to that sample's node.
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] as number;
    ms.set(id, (ms.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
  }
  const total = [...ms.values()].reduce((a, b) => a + b, 0);
  const grouped = new Map<string, SelfTime>();
  for (const [id, time] of ms) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const where = location(frame.url, frame.lineNumber, frame.columnNumber, root);
    const fn = frame.functionName || "(anonymous)";
    const key = `${fn}@${where}`;
    const entry = grouped.get(key) ?? { fn, where, ms: 0, share: 0 };
    entry.ms += time;
    grouped.set(key, entry);
  }
  const list = [...grouped.values()];
  for (const e of list) e.share = total > 0 ? e.ms / total : 0;
  return list.sort((a, b) => b.ms - a.ms);
}

/**
 * Inclusive (total) time of each function: every sample counts once for each
 * distinct function on its stack. Only frames whose location passes `keep`.
 */
export function totalTimes(profile: CpuProfile, root: string, keep: (where: string) => boolean): SelfTime[] {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map<number, { key: string; fn: string; where: string } | null>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const where = location(f.url, f.lineNumber, f.columnNumber, root);
    const fn = f.functionName || "(anonymous)";
    keyOf.set(n.id, keep(where) ? { key: `${fn}@${where}`, fn, where } : null);
  }
  const totals = new Map<string, SelfTime>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let all = 0;
  for (let i = 0; i < samples.length; i++) {
    const ms = (deltas[i] ?? 0) / 1000;
    all += ms;
    const seen = new Set<string>();
    for (let id: number | undefined = samples[i]; id !== undefined; id = parent.get(id)) {
      const k = keyOf.get(id);
      if (!k || seen.has(k.key)) continue;
      seen.add(k.key);
      const entry = totals.get(k.key) ?? { fn: k.fn, where: k.where, ms: 0, share: 0 };
      entry.ms += ms;
      totals.set(k.key, entry);
    }
  }
  const list = [...totals.values()];
  for (const e of list) e.share = all > 0 ? e.ms / all : 0;
  return list.sort((a, b) => b.ms - a.ms);
}

/** Self time summed per file (node_modules folded per package). */
export function selfTimeByFile(rows: readonly SelfTime[]): Array<{ file: string; ms: number; share: number }> {
  const files = new Map<string, { ms: number; share: number }>();
  for (const r of rows) {
    let file = r.where.replace(/:\d+$/, "") || r.fn;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    if (pkg) file = `node_modules/${pkg[1]}`;
    else if (file.startsWith("node:")) file = "node: internals";
    const e = files.get(file) ?? { ms: 0, share: 0 };
    e.ms += r.ms;
    e.share += r.share;
    files.set(file, e);
  }
  return [...files].map(([file, e]) => ({ file, ...e })).sort((a, b) => b.ms - a.ms);
}
