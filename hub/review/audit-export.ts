/**
 * The audit export: a tenant's audit lines with what an auditor filters on
 * (the item's thread, run and queue; who; when; from where), read from the
 * store in pages (ReviewStore.exportAudit) and written as JSON lines or CSV,
 * one line at a time. `withSource` stamps a transition's audit lines with
 * where its principal's request came from, for every backend alike.
 */
import type { ActionSource, Principal } from "../auth/index.ts";
import type { AuditEntry, AuditKind } from "./types.ts";

export interface AuditExportFilter {
  tenant: string;
  /** ISO, inclusive. */
  from?: string;
  /** ISO, exclusive. */
  to?: string;
  threadId?: string;
  /** The item's queue (its current one). */
  queue?: string;
  /** `sub` of who acted (lines without one — expiry, cancel, requested — never match). */
  person?: string;
  /** Lines with `seq` greater than this (the previous page's last). */
  after: number;
  limit: number;
}

/** One audit line with its item's facts; `seq` orders lines as written (the export cursor). */
export interface AuditRecord extends AuditEntry {
  seq: number;
  tenant: string;
  threadId: string;
  runId: string;
  queue: string;
}

/** Lines a principal's own action writes: stamped with where the action came from. */
const ACTED: ReadonlySet<AuditKind> = new Set<AuditKind>(["answered", "rejected", "claimed", "released", "voted", "reassigned"]);

/** The transition with its principal's request source on the lines the principal wrote. */
export function withSource<T extends { audit: AuditEntry[] }>(transition: T, principal: Principal): T {
  const source = principal.source;
  if (source === undefined) return transition;
  const audit = transition.audit.map((entry) => (entry.source === undefined && entry.by?.sub === principal.sub && ACTED.has(entry.kind) ? { ...entry, source: { ...source } } : entry));
  return { ...transition, audit };
}

/** A line of the JSON lines export. */
export function auditRecordJson(r: AuditRecord) {
  return {
    seq: r.seq,
    at: r.at,
    tenant: r.tenant,
    thread_id: r.threadId,
    run_id: r.runId,
    queue: r.queue,
    interrupt_id: r.interruptId,
    kind: r.kind,
    by: r.by === undefined ? null : { sub: r.by.sub, name: r.by.name },
    reason: r.reason ?? null,
    detail: r.detail ?? null,
    source: r.source === undefined ? null : sourceJson(r.source),
  };
}

function sourceJson(s: ActionSource) {
  return { transport: s.transport, remote: s.remote, user_agent: s.userAgent };
}

export const AUDIT_CSV_COLUMNS = ["seq", "at", "tenant", "thread_id", "run_id", "queue", "interrupt_id", "kind", "by_sub", "by_name", "reason", "detail", "transport", "remote", "user_agent"] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF,
 * quotes doubled. A text that a spreadsheet would run as a formula (starts
 * with = + - @, tab or CR) gets a leading apostrophe first.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV row, CRLF-terminated. */
export function auditRecordCsv(r: AuditRecord): string {
  const cells: Array<string | number | null> = [
    r.seq,
    r.at,
    r.tenant,
    r.threadId,
    r.runId,
    r.queue,
    r.interruptId,
    r.kind,
    r.by?.sub ?? null,
    r.by?.name ?? null,
    r.reason ?? null,
    r.detail === undefined ? null : JSON.stringify(r.detail),
    r.source?.transport ?? null,
    r.source?.remote ?? null,
    r.source?.userAgent ?? null,
  ];
  return `${cells.map(csvField).join(",")}\r\n`;
}

/** Whether a record passes the filter: the reference the backends' queries implement (the memory one uses it). */
export function matchesExport(r: AuditRecord, f: AuditExportFilter): boolean {
  return (
    r.tenant === f.tenant &&
    r.seq > f.after &&
    (f.from === undefined || r.at >= f.from) &&
    (f.to === undefined || r.at < f.to) &&
    (f.threadId === undefined || r.threadId === f.threadId) &&
    (f.queue === undefined || r.queue === f.queue) &&
    (f.person === undefined || r.by?.sub === f.person)
  );
}
