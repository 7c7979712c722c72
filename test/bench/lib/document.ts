/** Renders docs/benchmarks.md from one run's results. */
import type { MachineInfo } from "./machine.ts";
import { tableLines, type Row } from "./report.ts";

export interface TableSection {
  title: string;
  peer: string;
  rows: readonly Row[];
  notes: readonly string[];
}

export interface RunInfo {
  command: string;
  date: Date;
  runs: number;
  quick: boolean;
  durationMs: number;
  loadAverage: { start: readonly number[]; end: readonly number[] };
  warnings: readonly string[];
}

const load = (l: readonly number[]) => l.map((v) => v.toFixed(2)).join(" / ");

export function renderDocument(machine: MachineInfo, run: RunInfo, sections: readonly TableSection[], pending: readonly string[]): string {
  const out: string[] = [
    "# Benchmarks",
    "",
    "Switchboard measured side by side with the system a user would pick instead, in the same run on the same machine",
    "(issue 7). This file is written by `npm run bench` (test/bench/run.ts): rerun it rather than editing by hand.",
    "The web app's section at the end is written by `npm run bench:web` (test/bench/web.ts); `npm run bench` keeps it.",
    "",
    "## Run",
    "",
    `- Command: \`${run.command}\`${run.quick ? " (quick mode: fewer iterations and tighter time bounds)" : ""}`,
    `- Date: ${run.date.toISOString()}`,
    `- Each cell: median of ${run.runs} runs (fewer where a suite's notes say so), with the range (min–max) of the runs in parentheses`,
    `- Duration: ${Math.round(run.durationMs / 1000)} s`,
    "",
    "## Machine",
    "",
    `- CPU: ${machine.cpu}, ${machine.cores} cores; RAM ${machine.ramGiB} GiB; ${machine.os}`,
    `- Node ${machine.node}`,
    `- Packages: ${machine.packages.join(", ")}`,
    `- Commit: ${machine.commit}`,
    `- Load average (1 / 5 / 15 min) at start: ${load(run.loadAverage.start)}; at end: ${load(run.loadAverage.end)}` +
      (machine.cores > 0 && (run.loadAverage.start[0] ?? 0) > machine.cores / 2 ? " — other work shared the CPU, so absolute times are noisy; ratios of interleaved runs less so" : ""),
    "",
  ];
  for (const section of sections) {
    out.push(
      `## ${section.title}`,
      "",
      ...tableLines(section.rows, section.peer),
      "",
      `Ratio = Switchboard median ÷ ${section.peer} median: below 1 is better for times and memory, above 1 for rates and counts. ` +
        "Targets are Switchboard's (issue 7), judged on the median unless the target says otherwise.",
      "",
      "How each row is measured:",
      "",
      ...section.notes.map((n) => `- ${n}`),
      "",
    );
  }
  if (run.warnings.length > 0) {
    out.push("Process warnings during the run (counted, not printed each time):", "", ...run.warnings.map((w) => `- ${w}`), "");
  }
  for (const title of pending) out.push(`## ${title}`, "", "Not measured yet.", "");
  return out.join("\n");
}

/** Markers around the web app's section, which `npm run bench:web` writes and `npm run bench` carries over. */
export const WEB_START = "<!-- bench:web — written by npm run bench:web; npm run bench keeps it -->";
export const WEB_END = "<!-- /bench:web -->";

/** The web section of a document (markers included), or "" when it has none. */
export function webSectionOf(document: string): string {
  const start = document.indexOf(WEB_START);
  const end = document.indexOf(WEB_END, start);
  return start < 0 || end < 0 ? "" : document.slice(start, end + WEB_END.length);
}

/** The document with its web section replaced by `section` (appended when it had none); the rest unchanged. */
export function replaceWebSection(document: string, section: string): string {
  const block = `${WEB_START}\n${section.trimEnd()}\n${WEB_END}`;
  const old = webSectionOf(document);
  if (old !== "") return document.replace(old, () => block);
  return `${document.trimEnd()}${document.trim() === "" ? "" : "\n\n"}${block}\n`;
}
