/**
 * The inbox: every open review item this person may answer, across threads
 * and queues, pushed live by the hub (no polling). Each row says what is
 * asked, where it comes from, its age and deadline, who claimed it and who
 * else is looking; answered, expired and withdrawn items stay a while, saying
 * who and when. Filters (queue, assistant), sorting, and j / k / Enter.
 */
import { memo, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { printable, type InterruptView, type PresenceEntry, type QueueHandle, type ResolvedInterrupt } from "../../../index.ts";
import type { QuorumProgressData, ReviewActionJson } from "../../../../hub/protocol/index.ts";
import { Avatars, peopleOf, type Person } from "../components/people.tsx";
import { StatusPill } from "../components/status.tsx";
import { ago, countdown, progressText, shortId, summarize } from "../format.ts";
import { hasRole, useClockText, useNow, useQueueItems, useSession } from "../hub.tsx";
import { hrefOf } from "../router.ts";

/** The hub's queue name for "every queue I may answer" (docs/PROTOCOL.md, review queues). */
export const INBOX_QUEUE = "*";
/** How long answered / expired / withdrawn items stay listed, greyed, after they leave the queue. */
const RESOLVED_VISIBLE_MS = 10 * 60_000;

type Sort = "oldest" | "newest" | "expiry";
const NOBODY: Person[] = [];

interface Row {
  key: string;
  threadId: string;
  interruptId: string;
  payload: unknown;
  queue: string;
  assistant: string;
  node: string | undefined;
  requestedAt: number | undefined;
  expiresAt: number | null;
  /** Its expiry policy keeps it pending past the deadline: the countdown ends "overdue", not "expired". */
  keep?: boolean;
  open?: InterruptView;
  resolved?: ResolvedInterrupt;
  /** One action of a multi-action interrupt: its rows are listed together, in action order. */
  action?: ReviewActionJson | undefined;
  /** A quorum item's progress in its current stage, live from its votes. */
  progress?: QuorumProgressData | undefined;
  /** Still pending, but reassigned to others: it leaves this inbox (greyed, saying to whom). */
  movedTo?: string;
}

/** Whether the item's candidates (after a reassignment) still include this person. */
export function stillMine(review: InterruptView["review"], me: { sub: string; roles: readonly string[] }): boolean {
  if (!review || me.roles.includes("admin")) return true;
  const { users, roles } = review;
  if (users.length === 0 && roles.length === 0) return true;
  return users.includes(me.sub) || roles.some((r) => me.roles.includes(r));
}

function movedText(review: NonNullable<InterruptView["review"]>): string {
  const who = [...review.users.map((u) => printable(u)), ...review.roles.map((r) => `role ${printable(r)}`)].join(", ");
  return `reassigned to ${who || "everyone"}${review.queue !== "default" ? ` (${printable(review.queue)})` : ""}`;
}

function rowOfOpen(item: InterruptView): Row {
  return {
    key: `${item.thread_id ?? ""}/${item.interrupt_id}`,
    threadId: item.thread_id ?? "",
    interruptId: item.interrupt_id,
    payload: item.payload,
    queue: item.review?.queue ?? "default",
    assistant: item.review?.assistant_id ?? "",
    node: item.node,
    requestedAt: item.review?.created_at ?? item.requested_at,
    expiresAt: item.review?.expires_at ?? null,
    keep: item.review?.on_expire?.action === "keep",
    open: item,
    action: item.review?.action,
    progress: item.review?.quorum?.progress,
  };
}

function rowOfResolved(r: ResolvedInterrupt): Row {
  return {
    key: `${r.thread_id ?? ""}/${r.interrupt_id}`,
    threadId: r.thread_id ?? "",
    interruptId: r.interrupt_id,
    payload: r.payload,
    queue: r.review?.queue ?? "default",
    assistant: r.review?.assistant_id ?? "",
    node: r.node,
    requestedAt: r.review?.created_at ?? r.requested_at,
    expiresAt: r.review?.expires_at ?? null,
    resolved: r,
    action: r.review?.action,
  };
}

const rowCache = new WeakMap<object, Row>();
function cached<T extends object>(source: T, make: (source: T) => Row): Row {
  let row = rowCache.get(source);
  if (!row) rowCache.set(source, (row = make(source)));
  return row;
}

function outcomeText(r: ResolvedInterrupt, now: number): string {
  const when = ago(r.at, now);
  switch (r.outcome) {
    case "answered":
      return `answered by ${printable(r.answered_by?.name ?? "someone")}${when ? ` · ${when}` : ""}`;
    case "expired":
      return `expired${r.action === "default_response" ? " (default answer applied)" : ""}${when ? ` · ${when}` : ""}`;
    case "cancelled":
      return `withdrawn${r.reason ? `: ${r.reason}` : ""}${when ? ` · ${when}` : ""}`;
  }
}

/** Texts that age, each re-rendered only when it changes (the shared clock). */
function Age({ at }: { at: number | undefined }): ReactNode {
  return useClockText((now) => ago(at, now));
}

function Countdown({ at, keep = false }: { at: number; keep?: boolean | undefined }): ReactNode {
  const text = useClockText((now) => countdown(at, now, keep ? "overdue" : "expired"));
  const soon = useClockText((now) => (at - now < 60_000 ? "text-warn" : ""));
  return <span className={soon}>{text}</span>;
}

function Outcome({ resolved }: { resolved: ResolvedInterrupt }): ReactNode {
  return useClockText((now) => outcomeText(resolved, now));
}

/**
 * The actions of one interrupt stay together, in action order, where the
 * first of them sorts; everything else keeps its order.
 */
export function groupActions<T extends { action?: ReviewActionJson | undefined; threadId: string }>(rows: readonly T[]): T[] {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    if (!row.action) continue;
    const key = `${row.threadId}/${row.action.interrupt_id}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const out: T[] = [];
  const placed = new Set<string>();
  for (const row of rows) {
    if (!row.action) {
      out.push(row);
      continue;
    }
    const key = `${row.threadId}/${row.action.interrupt_id}`;
    if (placed.has(key)) continue;
    placed.add(key);
    out.push(...(groups.get(key) ?? []).sort((a, b) => (a.action?.index ?? 0) - (b.action?.index ?? 0)));
  }
  return out;
}

const InboxRow = memo(function InboxRow({ row, looking, selected, me, first }: { row: Row; looking: Person[]; selected: boolean; me: string; first: boolean }): ReactNode {
  const claimedBy = row.open?.claimed_by;
  const done = row.resolved !== undefined || row.movedTo !== undefined;
  const others = looking.filter((p) => p.sub !== me);
  // A one-action request reads like any question: no group to show.
  const action = row.action !== undefined && row.action.count > 1 ? row.action : undefined;
  return (
    <tr className={`${done ? "row-done" : ""} ${selected ? "row-selected" : ""} ${action ? `row-action ${first ? "row-action-first" : ""}` : ""}`} data-interrupt={row.interruptId} aria-selected={selected}>
      <td className="cell-what">
        {action && first && (
          <div className="group-head small muted">
            One request from the agent, {action.count} action{action.count === 1 ? "" : "s"} — each decided on its own
          </div>
        )}
        <a href={hrefOf({ view: "item", threadId: row.threadId, interruptId: row.interruptId })} className="item-link" data-row-link>
          {summarize(row.payload)}
        </a>
        <div className="cell-sub">
          {action && (
            <span className="tag tag-action" title={`allows ${action.allowed.join(", ")}`}>
              action {action.index + 1} of {action.count}
            </span>
          )}
          {row.assistant && <span>{row.assistant}</span>}
          <a href={hrefOf({ view: "thread", threadId: row.threadId })} className="muted" aria-label={`Run view of thread ${row.threadId}`}>
            {shortId(row.threadId)}
          </a>
          {row.node && <span className="mono muted">{row.node}</span>}
          {row.queue !== "default" && <span className="tag">{row.queue}</span>}
          {row.progress && !done && <span className="quorum small">{progressText(row.progress)}</span>}
        </div>
      </td>
      <td className="cell-age">
        <Age at={row.requestedAt} />
      </td>
      <td className={`cell-expiry ${row.expiresAt !== null && !done ? "" : "cell-empty"}`}>{row.expiresAt !== null && !done ? <Countdown at={row.expiresAt} keep={row.keep} /> : <span className="muted">—</span>}</td>
      <td className="cell-status">
        {row.movedTo !== undefined ? (
          <span className="outcome">
            <StatusPill status="open" />
            <span className="small">{row.movedTo}</span>
          </span>
        ) : done && row.resolved ? (
          <span className="outcome">
            <StatusPill status={row.resolved.outcome} />
            <span className="small">
              <Outcome resolved={row.resolved} />
            </span>
          </span>
        ) : claimedBy ? (
          <span className="outcome">
            <StatusPill status="claimed" />
            <span className="small">{claimedBy.sub === me ? "by you" : `by ${printable(claimedBy.name)}`}</span>
          </span>
        ) : (
          <StatusPill status="open" />
        )}
      </td>
      <td className="cell-looking">{others.length > 0 ? <Avatars people={others} label="Also looking" /> : null}</td>
    </tr>
  );
});

function lookingAt(presence: readonly PresenceEntry[]): Map<string, Person[]> {
  const map = new Map<string, Person[]>();
  for (const entry of presence) {
    const id = entry.state["looking_at"];
    if (typeof id !== "string") continue;
    for (const person of peopleOf([entry])) {
      const list = map.get(id) ?? [];
      if (!list.some((p) => p.sub === person.sub)) list.push(person);
      map.set(id, list);
    }
  }
  return map;
}

export function InboxView({ queue }: { queue: QueueHandle }): ReactNode {
  const { me } = useSession();
  const { items, resolved, presence } = useQueueItems(queue);
  // Only for dropping resolved rows after a while; the rows' own texts follow the shared clock.
  const now = useNow(60_000);
  const [queueFilter, setQueueFilter] = useState("");
  const [assistantFilter, setAssistantFilter] = useState("");
  const [sort, setSort] = useState<Sort>("oldest");
  const [selected, setSelected] = useState(0);
  const tableRef = useRef<HTMLTableSectionElement>(null);
  const reviewer = hasRole(me, "reviewer");

  useEffect(() => {
    if (!reviewer) return;
    void queue.setPresence({ view: "inbox" }).catch(() => undefined);
  }, [queue, reviewer]);

  // Questions that left the queue stay visible a while, with their outcome (the SDK keeps what was asked).
  const rows = useMemo(() => {
    // One Row per SDK object (the SDK keeps an unchanged item's identity), so an update re-renders its row only.
    // An item reassigned away from me stays listed a while, greyed, saying to whom (it left live).
    const open = items.map((item) => {
      const row = cached(item, rowOfOpen);
      return item.review && !stillMine(item.review, me.principal) ? { ...row, movedTo: movedText(item.review) } : row;
    });
    const done: Row[] = [];
    for (const r of resolved) {
      if (r.at !== undefined && now - r.at > RESOLVED_VISIBLE_MS) continue;
      done.push(cached(r, rowOfResolved));
    }
    const openKeys = new Set(open.map((o) => o.key));
    const all = [...open, ...done.filter((d) => !openKeys.has(d.key))];
    const filtered = all.filter((r) => (queueFilter === "" || r.queue === queueFilter) && (assistantFilter === "" || r.assistant === assistantFilter));
    const time = (r: Row) => r.requestedAt ?? 0;
    const sorters: Record<Sort, (a: Row, b: Row) => number> = {
      oldest: (a, b) => time(a) - time(b),
      newest: (a, b) => time(b) - time(a),
      expiry: (a, b) => (a.expiresAt ?? Infinity) - (b.expiresAt ?? Infinity) || time(a) - time(b),
    };
    // Open items first; what was resolved sinks below them.
    const gone = (r: Row) => Number(r.resolved !== undefined || r.movedTo !== undefined);
    return groupActions(filtered.sort((a, b) => gone(a) - gone(b) || sorters[sort](a, b)));
  }, [items, resolved, queueFilter, assistantFilter, sort, now, me.principal]);

  const queues = useMemo(() => [...new Set(items.map((i) => i.review?.queue ?? "default"))].sort(), [items]);
  const assistants = useMemo(() => [...new Set(items.map((i) => i.review?.assistant_id ?? "").filter(Boolean))].sort(), [items]);
  const looking = useMemo(() => lookingAt(presence), [presence]);
  const watchers = useMemo(() => peopleOf(presence).filter((p) => p.sub !== me.principal.sub), [presence, me.principal.sub]);
  const openCount = rows.filter((r) => !r.resolved && r.movedTo === undefined).length;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLElement && e.target.closest("input, textarea, select")) return;
      if (e.key !== "j" && e.key !== "k") return;
      e.preventDefault();
      setSelected((s) => {
        const next = Math.max(0, Math.min(rows.length - 1, s + (e.key === "j" ? 1 : -1)));
        tableRef.current?.querySelectorAll<HTMLElement>("[data-row-link]")[next]?.focus();
        return next;
      });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows.length]);

  if (!reviewer) {
    return (
      <main className="page">
        <h1>Inbox</h1>
        <div className="empty">
          <p>
            You are signed in as <strong>{me.principal.roles.join(", ") || "no role"}</strong>: review items go to reviewers.
          </p>
          <p>
            Watch runs live in <a href="#/threads">Threads</a>.
          </p>
        </div>
      </main>
    );
  }

  return (
    <main className="page">
      <div className="page-head">
        <div>
          <h1>Inbox</h1>
          <p className="muted">
            {openCount === 0 ? "Nothing waits for you." : `${openCount} open item${openCount === 1 ? "" : "s"} you may answer`}
            {watchers.length > 0 && <> · also in the inbox: {watchers.map((w) => w.name).join(", ")}</>}
          </p>
        </div>
        <div className="toolbar" role="group" aria-label="Filters">
          <label className="select">
            <span>Queue</span>
            <select value={queueFilter} onChange={(e) => setQueueFilter(e.target.value)}>
              <option value="">All queues</option>
              {queues.map((q) => (
                <option key={q}>{q}</option>
              ))}
            </select>
          </label>
          <label className="select">
            <span>Assistant</span>
            <select value={assistantFilter} onChange={(e) => setAssistantFilter(e.target.value)}>
              <option value="">All assistants</option>
              {assistants.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
          <label className="select">
            <span>Sort</span>
            <select value={sort} onChange={(e) => setSort(e.target.value as Sort)}>
              <option value="oldest">Oldest first</option>
              <option value="newest">Newest first</option>
              <option value="expiry">Expiring soonest</option>
            </select>
          </label>
        </div>
      </div>
      {rows.length === 0 ? (
        <div className="empty">
          <p>No open review items. New questions appear here the moment an agent asks.</p>
        </div>
      ) : (
        <table className="inbox review-table" aria-label="Review items">
          {/* Fixed column widths: a text that changes (an age, a countdown) relayouts its row, not a thousand-row table. */}
          <colgroup>
            <col />
            <col className="col-age" />
            <col className="col-expiry" />
            <col className="col-status" />
            <col className="col-looking" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">What is asked</th>
              <th scope="col">Age</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Also looking</span>
              </th>
            </tr>
          </thead>
          <tbody ref={tableRef}>
            {rows.map((row, i) => (
              <InboxRow
                key={row.key}
                row={row}
                looking={looking.get(row.interruptId) ?? NOBODY}
                selected={i === selected}
                me={me.principal.sub}
                first={row.action !== undefined && rows[i - 1]?.action?.interrupt_id !== row.action.interrupt_id}
              />
            ))}
          </tbody>
        </table>
      )}
      <p className="hint shortcuts">
        <kbd>j</kbd> <kbd>k</kbd> move · <kbd>Enter</kbd> open · in an item: <kbd>a</kbd> approve, <kbd>n</kbd> next item, <kbd>c</kbd> claim, <kbd>Esc</kbd> back
      </p>
    </main>
  );
}
