/**
 * `GET /audit/export` — a tenant's audit trail as JSON lines or CSV, for the
 * `admin` or `auditor` role. Filters: `from` / `to` (ISO 8601 or epoch ms;
 * from inclusive, to exclusive), `thread_id`, `queue`, `person` (who acted);
 * `after` (the last `seq` of the previous export) and `limit` (lines, at most
 * AUDIT_EXPORT_MAX). Streamed: the store is read a page at a time as the
 * client reads, so a big tenant is never one string in memory.
 */
import type { Hono } from "hono";
import { ADMIN_ROLE, type Principal } from "../auth/index.ts";
import { SwitchboardError } from "../protocol/index.ts";
import { AUDIT_CSV_COLUMNS, auditRecordCsv, auditRecordJson, type AuditExportFilter } from "../review/audit-export.ts";
import type { HubServices } from "../services.ts";
import { failResponse } from "./errors.ts";

type Env = { Variables: { principal: Principal } };

/** The role that may export without being admin. */
export const AUDITOR_ROLE = "auditor";
export const AUDIT_EXPORT_DEFAULT = 10_000;
export const AUDIT_EXPORT_MAX = 100_000;
/** Lines read from the store per page. */
const PAGE = 500;

function timeParam(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms) || (!/^\d+$/.test(value) && !/^\d{4}-\d{2}-\d{2}/.test(value))) {
    throw new SwitchboardError("invalid_argument", `${name} must be an ISO 8601 time (2026-12-01T00:00:00Z) or epoch milliseconds`);
  }
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw new SwitchboardError("invalid_argument", `${name} is out of range`);
  return date.toISOString();
}

function intParam(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) throw new SwitchboardError("invalid_argument", `${name} must be an integer in ${min}..${max}`);
  return n;
}

export function addAuditExportRoutes<E extends Env>(app: Hono<E>, services: HubServices): void {
  app.get("/audit/export", async (c) => {
    try {
      const principal = c.get("principal");
      if (!principal.roles.includes(ADMIN_ROLE) && !principal.roles.includes(AUDITOR_ROLE)) {
        throw new SwitchboardError("permission_denied", `the audit export needs the "${ADMIN_ROLE}" or "${AUDITOR_ROLE}" role; ${principal.sub} has [${principal.roles.join(", ")}]`);
      }
      const format = c.req.query("format") ?? "jsonl";
      if (format !== "jsonl" && format !== "csv") throw new SwitchboardError("invalid_argument", 'format must be "jsonl" or "csv"');
      const from = timeParam(c.req.query("from"), "from");
      const to = timeParam(c.req.query("to"), "to");
      const text = (name: string): string | undefined => {
        const v = c.req.query(name);
        if (v !== undefined && Buffer.byteLength(v) > services.limits.maxIdBytes) throw new SwitchboardError("invalid_argument", `${name} is longer than ${services.limits.maxIdBytes} bytes`);
        return v === undefined || v === "" ? undefined : v;
      };
      const base: Omit<AuditExportFilter, "after" | "limit"> = {
        tenant: principal.tenant,
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
        ...(text("thread_id") === undefined ? {} : { threadId: text("thread_id") as string }),
        ...(text("queue") === undefined ? {} : { queue: text("queue") as string }),
        ...(text("person") === undefined ? {} : { person: text("person") as string }),
      };
      let after = intParam(c.req.query("after"), "after", 0, 0, Number.MAX_SAFE_INTEGER);
      let left = intParam(c.req.query("limit"), "limit", AUDIT_EXPORT_DEFAULT, 1, AUDIT_EXPORT_MAX);
      const reviews = services.reviews;
      const encoder = new TextEncoder();
      let asked = Math.min(PAGE, left);
      // The first page is read before the answer, so a store error is a proper error response.
      let page = await reviews.exportAudit({ ...base, after, limit: asked });
      let header = format === "csv" ? `${AUDIT_CSV_COLUMNS.join(",")}\r\n` : "";
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            if (page.length === 0) {
              if (header !== "") controller.enqueue(encoder.encode(header));
              controller.close();
              return;
            }
            let chunk = header;
            header = "";
            for (const record of page) chunk += format === "csv" ? auditRecordCsv(record) : `${JSON.stringify(auditRecordJson(record))}\n`;
            controller.enqueue(encoder.encode(chunk));
            left -= page.length;
            after = page.at(-1)?.seq ?? after;
            // A short page was the last one.
            const more = left > 0 && page.length === asked;
            asked = Math.min(PAGE, left);
            page = more ? await reviews.exportAudit({ ...base, after, limit: asked }) : [];
          } catch (error) {
            services.logger.error(`audit export of tenant ${principal.tenant}: ${String(error)}`);
            controller.error(error);
          }
        },
      });
      const type = format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8";
      return new Response(body, { headers: { "content-type": type, "content-disposition": `attachment; filename="audit-${principal.tenant.replace(/[^\w.-]/g, "_")}.${format}"`, "cache-control": "no-store" } });
    } catch (error) {
      return failResponse(error);
    }
  });
}
