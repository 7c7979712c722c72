/** Status pills for runs, threads and review items: colour plus a word (never colour alone). */
import type { ReactNode } from "react";

const TONES: Record<string, string> = {
  running: "info",
  started: "info",
  busy: "info",
  interrupted: "warn",
  open: "warn",
  claimed: "accent",
  completed: "ok",
  answered: "ok",
  idle: "muted",
  failed: "bad",
  error: "bad",
  cancelled: "muted",
  expired: "muted",
  abandoned: "bad",
};

const WORDS: Record<string, string> = { busy: "running", error: "failed", interrupted: "waiting for review", started: "running" };

export function StatusPill({ status, label }: { status: string; label?: string }): ReactNode {
  return <span className={`pill pill-${TONES[status] ?? "muted"}`}>{label ?? WORDS[status] ?? status}</span>;
}
