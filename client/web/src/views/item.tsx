/**
 * One review item: what is asked (the payload for a person), its live status
 * (open, claimed by whom, answered by whom), who else is looking, the answer
 * form its declaration calls for, claim / release, and the audit trail. A
 * refusal says why and keeps everything typed; shortcuts: a approve, n next,
 * c claim / release, Esc back to the inbox.
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { printable, HubClientError, type QueueHandle } from "../../../index.ts";
import type { ReviewRecord } from "../../../../hub/protocol/index.ts";
import { PayloadView } from "../components/payload.tsx";
import { Avatars, peopleOf } from "../components/people.tsx";
import { StatusPill } from "../components/status.tsx";
import { ago, clockTime, countdown, summarize } from "../format.ts";
import { hasRole, useNow, useQueueItems, useSession, useThread, useThreadSlice } from "../hub.tsx";
import { kindFor } from "../kinds/index.ts";
import { hrefOf, navigate } from "../router.ts";

type Outcome = { kind: "sending" } | { kind: "sent"; resumed: string | undefined } | { kind: "refused"; error: HubClientError } | null;

/** A refusal in words: who won, which role is missing, what to do. */
export function refusalText(error: HubClientError, now: number): string {
  const d = error.details ?? {};
  const person = (v: unknown) => (typeof v === "object" && v !== null && typeof Reflect.get(v, "name") === "string" ? String(Reflect.get(v, "name")) : undefined);
  switch (error.code) {
    case "already_answered": {
      const winner = person(d["winner"]) ?? person(d["answered_by"]) ?? "someone else";
      const at = typeof d["answered_at"] === "number" ? ` ${ago(d["answered_at"], now)}` : "";
      return `${winner} answered first${at}. Your answer was not sent; it is still below.`;
    }
    case "permission_denied":
      return `Not allowed: ${error.message}`;
    case "claim_held": {
      const holder = person(d["claimed_by"]) ?? "someone";
      const until = typeof d["expires_at"] === "number" ? ` until ${clockTime(d["expires_at"])}` : "";
      return `${holder} has claimed this item${until}.`;
    }
    case "interrupt_expired":
      return "This item expired before your answer arrived.";
    case "interrupt_cancelled":
      return "The run that asked was cancelled; the question is void.";
    case "invalid_argument":
      return `The hub refused the answer: ${error.message}`;
    case "connection_lost":
    case "timeout":
      return `${error.message}. Check the item's status before sending again.`;
    default:
      return error.message;
  }
}

/** "It is routed to u_ada, u_rita and role finance; you are not one of them", when that is why. */
function notCandidateReason(record: ReviewRecord, me: { sub: string; roles: readonly string[] }): string | undefined {
  const { users, roles } = record.routing;
  if (users.length === 0 && roles.length === 0) return undefined;
  if (users.includes(me.sub) || roles.some((r) => me.roles.includes(r))) return undefined;
  const who = [...users, ...roles.map((r) => `role ${r}`)].join(", ");
  return `This item is routed to ${who}; you are not one of its candidates.`;
}

export function ItemView({ threadId, interruptId, queue }: { threadId: string; interruptId: string; queue: QueueHandle }): ReactNode {
  const { client, me } = useSession();
  const { thread, error: subscribeError } = useThread(threadId);
  const pending = useThreadSlice(thread, "interrupts");
  const resolvedList = useThreadSlice(thread, "resolved");
  const threadPresence = useThreadSlice(thread, "presence");
  const { items: inboxItems, presence: inboxPresence } = useQueueItems(queue);
  const now = useNow(1000);
  const [record, setRecord] = useState<ReviewRecord | null>(null);
  const [loadError, setLoadError] = useState<HubClientError | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const open = pending.find((i) => i.interrupt_id === interruptId);
  const resolved = resolvedList.findLast((r) => r.interrupt_id === interruptId);
  const inboxItem = inboxItems.find((i) => i.interrupt_id === interruptId && i.thread_id === threadId);
  const reviewer = hasRole(me, "reviewer");

  // The record (routing, answer, audit, may I answer) is re-read whenever the live status moves.
  const statusKey = `${open?.status ?? ""}|${open?.claimed_by?.sub ?? ""}|${resolved?.outcome ?? ""}`;
  useEffect(() => {
    let gone = false;
    client.reviewItem(interruptId).then(
      (r) => !gone && (setRecord(r), setLoadError(null)),
      (e: unknown) => !gone && setLoadError(e instanceof HubClientError ? e : new HubClientError("unknown_error", String(e))),
    );
    return () => {
      gone = true;
    };
  }, [client, interruptId, statusKey]);

  // Presence: the inbox and the thread both see that I am looking at this item.
  useEffect(() => {
    const state = { looking_at: interruptId, thread_id: threadId };
    if (reviewer) void queue.setPresence(state).catch(() => undefined);
    void thread.setPresence(state).catch(() => undefined);
    return () => {
      if (reviewer) void queue.setPresence({ view: "inbox" }).catch(() => undefined);
      void thread.setPresence(null).catch(() => undefined);
    };
  }, [queue, thread, interruptId, threadId, reviewer]);

  const payload = open?.payload ?? inboxItem?.payload ?? resolved?.payload ?? record?.payload;
  const status = open ? open.status : resolved ? resolved.outcome : (record?.status ?? "open");
  const claimedBy = open?.claimed_by ?? (record?.claim?.claimed_by && status === "claimed" ? record.claim.claimed_by : undefined);
  const claimedByMe = claimedBy?.sub === me.principal.sub;
  const answeredBy = resolved?.answered_by ?? record?.answer?.answered_by;
  const expiresAt = record?.expires_at ?? inboxItem?.review?.expires_at ?? null;
  const pendingNow = status === "open" || status === "claimed";

  const readOnlyReason = !reviewer
    ? `You are signed in as ${me.principal.roles.join(", ") || "no role"}: answering needs the reviewer role.`
    : record?.viewer && !record.viewer.may_answer && pendingNow && record.viewer.code !== "claim_held"
      ? notCandidateReason(record, me.principal) ?? record.viewer.reason ?? "You may not answer this item."
      : undefined;
  const disabled = readOnlyReason !== undefined || !pendingNow || outcome?.kind === "sending" || payload === undefined;

  const submit = useCallback(
    (value: unknown) => {
      setOutcome({ kind: "sending" });
      thread.respond(interruptId, value).then(
        (r) => setOutcome({ kind: "sent", resumed: r.run_id }),
        (e: unknown) => setOutcome({ kind: "refused", error: e instanceof HubClientError ? e : new HubClientError("unknown_error", String(e)) }),
      );
    },
    [thread, interruptId],
  );

  const toggleClaim = useCallback(() => {
    const act = claimedByMe ? thread.release(interruptId) : thread.claim(interruptId);
    Promise.resolve(act).then(
      () => setOutcome(null),
      (e: unknown) => setOutcome({ kind: "refused", error: e instanceof HubClientError ? e : new HubClientError("unknown_error", String(e)) }),
    );
  }, [thread, interruptId, claimedByMe]);

  const nextItem = useMemo(() => inboxItems.find((i) => !(i.interrupt_id === interruptId && i.thread_id === threadId)), [inboxItems, interruptId, threadId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLElement && e.target.closest("input, textarea, select") && e.key !== "Escape") return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "a") document.querySelector<HTMLButtonElement>('.answer [data-shortcut="approve"]:not(:disabled)')?.click();
      else if (e.key === "n" && nextItem?.thread_id) navigate({ view: "item", threadId: nextItem.thread_id, interruptId: nextItem.interrupt_id });
      else if (e.key === "c" && pendingNow && reviewer && !readOnlyReason) toggleClaim();
      else if (e.key === "Escape") navigate({ view: "inbox" });
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [nextItem, pendingNow, reviewer, readOnlyReason, toggleClaim]);

  const lookers = peopleOf([...threadPresence, ...inboxPresence], (s) => s["looking_at"] === interruptId).filter((p) => p.sub !== me.principal.sub);
  const answerItem = { interruptId, payload, responseSchema: record?.routing.response_schema ?? inboxItem?.review?.response_schema };
  const kind = kindFor(answerItem);
  const Form = kind.Form;

  if (loadError && payload === undefined) {
    return (
      <main className="page">
        <p>
          <a href="#/">← Inbox</a>
        </p>
        <div className="notice notice-bad" role="alert">
          {loadError.code === "no_such_interrupt" || loadError.code === "not_found" ? "There is no such review item." : loadError.message}
        </div>
      </main>
    );
  }

  return (
    <main className="page item-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href="#/">← Inbox</a>
        <span aria-hidden="true">/</span>
        <a href={hrefOf({ view: "thread", threadId })}>Run view</a>
      </nav>
      <div className="item-head">
        <h1>{payload === undefined ? "Loading…" : summarize(payload, 90)}</h1>
        <div className="meta-row">
          <StatusPill status={status} />
          {claimedBy && pendingNow && <span>claimed by {claimedByMe ? "you" : printable(claimedBy.name)}</span>}
          {resolved?.outcome === "answered" && <span>answered by {printable(answeredBy?.name ?? "someone")} · {ago(resolved.at, now)}</span>}
          {record?.node && <span className="mono muted">{record.node}</span>}
          {record?.created_at && <span className="muted">asked {ago(record.created_at, now)}</span>}
          {expiresAt !== null && pendingNow && <span className="text-warn">expires {countdown(expiresAt, now)}</span>}
          {lookers.length > 0 && (
            <span className="looking">
              <Avatars people={lookers} label="Also looking" /> <span className="small muted">also looking: {lookers.map((p) => p.name).join(", ")}</span>
            </span>
          )}
        </div>
      </div>
      {subscribeError && (
        <div className="notice notice-bad" role="alert">
          {subscribeError.message}
        </div>
      )}
      <div className="item-grid">
        <section className="card" aria-labelledby="asked-h">
          <h2 id="asked-h">What is asked</h2>
          {payload === undefined ? <p className="muted">Loading…</p> : <PayloadView payload={payload} />}
        </section>
        <section className="card answer" aria-labelledby="answer-h">
          <div className="card-head">
            <h2 id="answer-h">Your answer</h2>
            {pendingNow && reviewer && !readOnlyReason && (
              <button type="button" className="btn btn-small" onClick={toggleClaim} disabled={!!claimedBy && !claimedByMe}>
                {claimedByMe ? "Release" : "Claim"}
              </button>
            )}
          </div>
          {readOnlyReason && (
            <p className="notice notice-info" role="note">
              Read only. {readOnlyReason}
            </p>
          )}
          {!pendingNow && !outcome && resolved && (
            <p className="notice notice-ok" role="status">
              {resolved.outcome === "answered" ? `Answered by ${printable(answeredBy?.name ?? "someone")} ${ago(resolved.at, now)}.` : resolved.outcome === "expired" ? "This item expired." : `Withdrawn: ${resolved.reason ?? "the run ended"}.`}
            </p>
          )}
          {outcome?.kind === "sent" && (
            <p className="notice notice-ok" role="status">
              Answer sent. {outcome.resumed ? "The run resumed." : "The run resumes once its other questions are answered."} <a href={hrefOf({ view: "thread", threadId })}>Watch the run</a>
              {nextItem?.thread_id && (
                <>
                  {" "}
                  · <a href={hrefOf({ view: "item", threadId: nextItem.thread_id, interruptId: nextItem.interrupt_id })}>Next item</a>
                </>
              )}
            </p>
          )}
          {outcome?.kind === "refused" && (
            <p className="notice notice-bad" role="alert">
              {refusalText(outcome.error, now)}
            </p>
          )}
          {!readOnlyReason && (reviewer || pendingNow) && payload !== undefined && <Form item={answerItem} disabled={disabled} submit={submit} draftKey={`${threadId}.${interruptId}`} />}
          <p className="hint">{kind.label}</p>
        </section>
        <section className="card audit" aria-labelledby="audit-h">
          <h2 id="audit-h">History</h2>
          {record?.audit && record.audit.length > 0 ? (
            <ol className="timeline">
              {record.audit.map((a, i) => (
                <li key={`${a.at}-${i}`}>
                  <span className="tl-time">{clockTime(a.at)}</span> <strong>{a.kind.replace("_", " ")}</strong>
                  {a.by && <> by {printable(a.by.name)}</>}
                  {a.reason && <span className="muted"> ({a.reason})</span>}
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">No history yet.</p>
          )}
          {record && (
            <dl className="facts small">
              <div className="fact">
                <dt>Queue</dt>
                <dd>{record.queue}</dd>
              </div>
              <div className="fact">
                <dt>Candidates</dt>
                <dd>{[...record.routing.users, ...record.routing.roles.map((r) => `role ${r}`)].join(", ") || "every reviewer"}</dd>
              </div>
            </dl>
          )}
        </section>
      </div>
    </main>
  );
}
