/**
 * One review item: what is asked (the payload for a person), its live status
 * (open, claimed by whom, answered by whom), who else is looking, the answer
 * form its declaration calls for, claim / release, and the audit trail. A
 * refusal says why and keeps everything typed; shortcuts: a approve, n next,
 * c claim / release, Esc back to the inbox.
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { printable, HubClientError, type QueueHandle } from "../../../index.ts";
import type { QuorumProgressData, ReviewActionJson, ReviewRecord } from "../../../../hub/protocol/index.ts";
import { PayloadView } from "../components/payload.tsx";
import { Avatars, peopleOf } from "../components/people.tsx";
import { StatusPill } from "../components/status.tsx";
import { ago, clockTime, countdown, progressText, summarize } from "../format.ts";
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
    case "stale_payload":
      return "This item changed since you opened it (the run's state was edited or the question asked again). Your answer was not sent; it is still below. Reload to see what is asked now.";
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

/** A quorum item's progress in its current stage (REST `quorum.progress`), when it has one. */
type Progress = QuorumProgressData;

function quorumProgressOf(record: ReviewRecord | null): Progress | undefined {
  const quorum = record === null ? undefined : (Reflect.get(record, "quorum") as { progress?: Progress } | undefined);
  const p = quorum?.progress;
  return p && typeof p.approved === "number" && typeof p.required === "number" && Array.isArray(p.approvers) ? p : undefined;
}

/** The other actions the agent proposed in the same request: each its own item, each decided on its own. */
function ActionSiblings({ threadId, interruptId, action, refreshKey }: { threadId: string; interruptId: string; action: ReviewActionJson; refreshKey: string }): ReactNode {
  const { client } = useSession();
  const [records, setRecords] = useState<Array<ReviewRecord | { interrupt_id: string; hidden: string }>>([]);
  useEffect(() => {
    let gone = false;
    const ids = Array.from({ length: action.count }, (_, i) => `${action.interrupt_id}.${i}`);
    void Promise.all(ids.map((id) => client.reviewItem(id).catch((e: unknown) => ({ interrupt_id: id, hidden: e instanceof HubClientError ? e.code : "unknown_error" })))).then((all) => !gone && setRecords(all));
    return () => {
      gone = true;
    };
  }, [client, action.interrupt_id, action.count, refreshKey]);
  return (
    <section className="card siblings" aria-labelledby="siblings-h">
      <h2 id="siblings-h">This request's actions</h2>
      <p className="small muted">The agent continues once all {action.count} are decided, with every decision in order; a rejected one never drops the approved ones.</p>
      <ol className="sibling-list">
        {records.map((r, i) => {
          const mine = r.interrupt_id === interruptId;
          if ("hidden" in r) {
            return (
              <li key={r.interrupt_id}>
                <span className="mono">action {i + 1}</span> <span className="muted">— routed to someone else</span>
              </li>
            );
          }
          const name = Reflect.get(r, "action")?.name ?? `action ${i + 1}`;
          const answer = r.answer;
          return (
            <li key={r.interrupt_id} aria-current={mine ? "true" : undefined}>
              {mine ? <strong className="mono">{String(name)}</strong> : <a className="mono" href={hrefOf({ view: "item", threadId, interruptId: r.interrupt_id })}>{String(name)}</a>} <StatusPill status={r.status} />
              <span className="small muted">
                {" "}
                {r.queue}
                {answer ? ` · ${decisionWord(answer.response)} by ${printable(answer.answered_by.name)}` : ""}
                {!answer && quorumProgressOf(r) ? ` · ${progressText(quorumProgressOf(r)!)}` : ""}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function decisionWord(response: unknown): string {
  const type = typeof response === "object" && response !== null ? Reflect.get(response, "type") : undefined;
  return typeof type === "string" ? `${type}${type.endsWith("e") ? "d" : "ed"}`.replace("responsed", "responded").replace("editted", "edited") : "answered";
}

export function ItemView({ threadId, interruptId, queue }: { threadId: string; interruptId: string; queue: QueueHandle }): ReactNode {
  const { client, me } = useSession();
  const { thread, error: subscribeError } = useThread(threadId);
  const pending = useThreadSlice(thread, "interrupts");
  const resolvedList = useThreadSlice(thread, "resolved");
  const threadPresence = useThreadSlice(thread, "presence");
  const { items: inboxItems, resolved: inboxResolved, presence: inboxPresence } = useQueueItems(queue);
  const now = useNow(1000);
  const [record, setRecord] = useState<ReviewRecord | null>(null);
  const [loadError, setLoadError] = useState<HubClientError | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const inboxItem = inboxItems.find((i) => i.interrupt_id === interruptId && i.thread_id === threadId);
  // One action of a multi-action interrupt is an item the thread never asked by that id: its live state is the queue's.
  const open = pending.find((i) => i.interrupt_id === interruptId) ?? inboxItem;
  const resolved = resolvedList.findLast((r) => r.interrupt_id === interruptId) ?? inboxResolved.findLast((r) => r.interrupt_id === interruptId && r.thread_id === threadId);
  // Votes, reassignments and the other actions' answers change the record without changing this item's status.
  const [revisionKey, setRevisionKey] = useState(0);
  useEffect(
    () =>
      thread.on("event", (event) => {
        const data = event.params.data as { interrupt_id?: unknown; interrupt_ids?: unknown };
        const ids = [data.interrupt_id, ...(Array.isArray(data.interrupt_ids) ? data.interrupt_ids : [])];
        if (event.method.startsWith("input.") && ids.some((id) => typeof id === "string" && (id === interruptId || id.split(".")[0] === interruptId.split(".")[0]))) setRevisionKey((k) => k + 1);
      }),
    [thread, interruptId],
  );
  const reviewer = hasRole(me, "reviewer");

  // The record (routing, answer, audit, may I answer) is re-read whenever the live status moves.
  const statusKey = `${open?.status ?? ""}|${open?.claimed_by?.sub ?? ""}|${resolved?.outcome ?? ""}|${revisionKey}`;
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
  // Its expiry policy keeps it pending past the deadline: past it, it is overdue, still answerable.
  const keep = (record?.routing.on_expire?.action ?? inboxItem?.review?.on_expire?.action) === "keep";

  const readOnlyReason = !reviewer
    ? `You are signed in as ${me.principal.roles.join(", ") || "no role"}: answering needs the reviewer role.`
    : record?.viewer && !record.viewer.may_answer && pendingNow && record.viewer.code !== "claim_held"
      ? notCandidateReason(record, me.principal) ?? record.viewer.reason ?? "You may not answer this item."
      : undefined;
  const disabled = readOnlyReason !== undefined || !pendingNow || outcome?.kind === "sending" || payload === undefined;

  // The answer is bound to what this page shows: if the item changed since, the hub refuses it as stale_payload.
  const payloadDigest = record?.payload_digest ?? open?.payload_digest;
  const submit = useCallback(
    (value: unknown) => {
      setOutcome({ kind: "sending" });
      thread.respond(interruptId, value, payloadDigest === undefined ? {} : { payloadDigest }).then(
        (r) => setOutcome({ kind: "sent", resumed: r.run_id }),
        (e: unknown) => setOutcome({ kind: "refused", error: e instanceof HubClientError ? e : new HubClientError("unknown_error", String(e)) }),
      );
    },
    [thread, interruptId, payloadDigest],
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
  const action = record?.action ?? inboxItem?.review?.action ?? resolved?.review?.action;
  const answerItem = { interruptId, payload, responseSchema: record?.routing.response_schema ?? inboxItem?.review?.response_schema, action };
  const progress = quorumProgressOf(record);
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
          {expiresAt !== null && pendingNow && <span className="text-warn">{keep && expiresAt <= now ? "overdue: kept open past its deadline" : `expires ${countdown(expiresAt, now)}`}</span>}
          {progress && <span className="quorum">{progressText(progress)}</span>}
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
      <div className={action && action.count > 1 ? "item-grid with-siblings" : "item-grid"}>
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
              {outcome.error.code === "stale_payload" && (
                <>
                  {" "}
                  <button type="button" className="btn btn-small" onClick={() => (setOutcome(null), setRevisionKey((k) => k + 1))}>
                    Reload
                  </button>
                </>
              )}
            </p>
          )}
          {!readOnlyReason && (reviewer || pendingNow) && payload !== undefined && <Form item={answerItem} disabled={disabled} submit={submit} draftKey={`${threadId}.${interruptId}`} />}
          <p className="hint">Answer form: {kind.label}</p>
        </section>
        {action && action.count > 1 && <ActionSiblings threadId={threadId} interruptId={interruptId} action={action} refreshKey={statusKey} />}
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
