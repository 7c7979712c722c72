/**
 * The live run view of one thread (a shareable URL): message text growing
 * token by token, the node timeline with durations and nested subgraphs, the
 * public state, every question with its answer and who gave it, who is
 * watching, and — for operators — start and cancel.
 */
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { conversationOf, messagesFromValues, printable, type AgentTree, type MessageView, type ResolvedInterrupt } from "../../../index.ts";
import type { AssistantInfo, ReviewRecord } from "../../../../hub/protocol/index.ts";
import { JsonTree } from "../components/json-tree.tsx";
import { Avatars, peopleOf } from "../components/people.tsx";
import { StatusPill } from "../components/status.tsx";
import { ago, duration, requestActions, shortId, summarize } from "../format.ts";
import { hasRole, useNow, useSession, useThread, useThreadSlice } from "../hub.tsx";
import { hrefOf } from "../router.ts";
import { OperatorPanel } from "./operator.tsx";

function Message({ message }: { message: MessageView }): ReactNode {
  const streaming = message.status === "streaming";
  return (
    <article className={`message ${streaming ? "message-live" : ""}`} aria-label={`Message from ${message.node ?? message.role}`}>
      <header className="message-head">
        <span className="mono">{message.node ?? message.role}</span>
        {message.name && <span className="muted small">{message.name}</span>}
        {message.namespace.length > 0 && <span className="muted small">in {message.namespace.map((s) => s.split(":")[0]).join(" › ")}</span>}
        {streaming ? <StatusPill status="running" label="streaming" /> : message.status === "error" ? <StatusPill status="failed" label="cut short" /> : null}
        {message.usage && <span className="muted small">{message.usage.output_tokens} tokens</span>}
      </header>
      {message.reasoning && <p className="reasoning">{message.reasoning}</p>}
      <p className="message-text" data-testid="message-text">
        {message.text}
        {streaming && <span className="caret" aria-hidden="true" />}
      </p>
      {message.toolCalls.map((call, i) => (
        <div key={call.id ?? i} className="tool-call">
          <span className="mono">{call.name ?? "tool"}</span> <code>{call.args ? JSON.stringify(call.args) : call.argsText}</code>
        </div>
      ))}
      {message.error && <p className="field-error">{message.error.message}</p>}
    </article>
  );
}

function Timeline({ tree, now }: { tree: AgentTree; now: number }): ReactNode {
  const span = (start?: number, end?: number, live?: boolean) => (start === undefined ? "" : duration((end ?? (live ? now : start)) - start));
  return (
    <div className="tl-ns">
      <div className="tl-ns-head">
        <span className="mono">{tree.namespace.length === 0 ? (tree.graph_name ?? "run") : `${tree.node ?? tree.namespace.at(-1)} › ${tree.graph_name ?? "subgraph"}`}</span>
        <StatusPill status={tree.status} />
        <span className="muted small">{span(tree.started_at, tree.ended_at, tree.status === "running" || tree.status === "started")}</span>
      </div>
      <ol className="tl-nodes">
        {tree.nodes.map((node) => (
          <li key={node.task_id} className={`tl-node tl-${node.status}`}>
            <span className="tl-dot" aria-hidden="true" />
            <span className="mono">{node.name}</span>
            <span className="small">{node.status}</span>
            <span className="muted small">{span(node.started_at, node.ended_at, node.status === "running")}</span>
            {node.error && <span className="field-error small">{node.error}</span>}
          </li>
        ))}
      </ol>
      {tree.children.map((child) => (
        <div key={child.key} className="tl-child">
          <Timeline tree={child} now={now} />
        </div>
      ))}
    </div>
  );
}

function actionsNote(count: number): string {
  return count === 1 ? "its action is decided as an item of its own" : `each of its ${count} actions is decided as an item of its own`;
}

/** Who voted how on a quorum item: "Sam Reyes approved, Rita Alves approved". */
function votesLine(record: ReviewRecord): string | undefined {
  if (!record.votes || record.votes.length === 0) return undefined;
  return record.votes.map((v) => `${printable(v.by.name)} ${v.verdict === "approve" ? "approved" : "rejected"}`).join(", ");
}

/**
 * A question no longer pending, with its answer, read from its review item
 * (the thread's items, fetched once per change). `item` is what this page saw
 * happen; without it (asked before the page opened, or before the hub
 * restarted) the review item alone tells the story.
 */
function ResolvedQuestion({ item, record, now, actions }: { item: ResolvedInterrupt | undefined; record: ReviewRecord | undefined; now: number; actions: number | undefined }): ReactNode {
  const outcome = item?.outcome ?? (record?.status === "expired" || record?.status === "cancelled" ? record.status : "answered");
  const answer = record?.answer;
  const at = item?.at ?? answer?.answered_at ?? undefined;
  const votes = record ? votesLine(record) : undefined;
  // An action item's payload is the action itself: its summary names it (send_email(to: …)).
  const title = summarize(item?.payload ?? record?.payload, 100);
  return (
    <li className="question question-done">
      <div className="question-head">
        <StatusPill status={outcome} />
        <span>{title}</span>
      </div>
      <div className="small">
        {outcome === "answered" && actions !== undefined ? (
          <>answered: {actionsNote(actions)}</>
        ) : outcome === "answered" ? (
          <>answered by <strong>{printable(item?.answered_by?.name ?? answer?.answered_by.name ?? "someone")}</strong></>
        ) : (
          outcome
        )}
        {at !== undefined && <span className="muted"> · {ago(at, now)}</span>}
        {item?.reason && <span className="muted"> · {item.reason}</span>}
      </div>
      {votes && <div className="small muted">Votes: {votes}</div>}
      {answer && actions === undefined && (
        <div className="answer-value">
          <span className="muted small">Answer</span> <code>{JSON.stringify(answer.response)}</code>
        </div>
      )}
    </li>
  );
}

export function RunView({ threadId }: { threadId: string }): ReactNode {
  const { client, me } = useSession();
  const { thread, error } = useThread(threadId);
  const streamed = useThreadSlice(thread, "messages");
  const values = useThreadSlice(thread, "values");
  // The state's messages too: what streamed before this page (or before a hub restart) is not in the replay.
  const fromState = useMemo(() => messagesFromValues(values), [values]);
  const messages = useMemo(() => conversationOf(streamed, fromState), [streamed, fromState]);
  const status = useThreadSlice(thread, "status");
  const tree = useThreadSlice(thread, "tree");
  const pending = useThreadSlice(thread, "interrupts");
  const resolved = useThreadSlice(thread, "resolved");
  const presence = useThreadSlice(thread, "presence");
  const now = useNow(status.status === "running" || status.status === "started" ? 250 : 1000);
  const [assistants, setAssistants] = useState<AssistantInfo[]>([]);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    void thread.setPresence({ view: "run" }).catch(() => undefined);
    return () => void thread.setPresence(null).catch(() => undefined);
  }, [thread]);
  const [recordAssistant, setRecordAssistant] = useState<string | null>(null);
  useEffect(() => {
    client.assistants().then(setAssistants, () => undefined);
  }, [client]);
  // The thread's assistant, from its record (a resync's snapshot does not name the graph); a thread that never ran has none.
  useEffect(() => {
    if (status.run_id === null) return;
    client.getThread(threadId).then((t) => setRecordAssistant(t.assistant_id), () => undefined);
  }, [client, threadId, status.status, status.run_id]);

  // The thread's review items: answers, votes, and the questions asked before this page (or the hub) started.
  const [records, setRecords] = useState<ReviewRecord[]>([]);
  const asked = status.run_id !== null || pending.length > 0 || resolved.length > 0;
  useEffect(() => {
    // A thread that has not run yet has no questions (nor, before its first run, a record to ask about).
    if (!asked) return;
    let gone = false;
    client.threadReviews(threadId).then((r) => !gone && setRecords(r), () => undefined);
    return () => {
      gone = true;
    };
  }, [client, threadId, asked, resolved.length, pending.length, status.status]);
  const byId = useMemo(() => new Map(records.map((r) => [r.interrupt_id, r])), [records]);
  // Resolved items this page did not see resolve; an action of a request the page saw is shown with its request.
  const earlier = useMemo(() => {
    const seen = new Set([...resolved.map((r) => r.interrupt_id), ...pending.map((p) => p.interrupt_id)]);
    return records.filter((r) => r.status !== "open" && r.status !== "claimed" && !seen.has(r.interrupt_id) && !(r.action && seen.has(r.action.interrupt_id))).reverse();
  }, [records, resolved, pending]);

  const viewers = useMemo(() => peopleOf(presence), [presence]);
  const graphName = tree?.graph_name;
  const assistant = recordAssistant ?? assistants.find((a) => a.graph_id === graphName || a.assistant_id === graphName)?.assistant_id;
  const url = `${window.location.origin}/${hrefOf({ view: "thread", threadId })}`;
  const reviewer = hasRole(me, "reviewer");

  return (
    <main className="page run-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href="#/threads">← Threads</a>
      </nav>
      <div className="page-head">
        <div>
          <h1>
            Thread <span className="mono">{shortId(threadId, 12)}</span>
          </h1>
          <div className="meta-row">
            <span aria-label="Run status">
              <StatusPill status={status.status} />
            </span>
            {assistant && <span>{assistant}</span>}
            {status.run_id && <span className="muted mono small">run {shortId(status.run_id)}</span>}
            {status.error && <span className="field-error small">{status.error}</span>}
          </div>
        </div>
        <div className="toolbar">
          <Avatars people={viewers} label="Watching" />
          {viewers.length > 0 && <span className="muted small">{viewers.length} watching</span>}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              void navigator.clipboard?.writeText(url).then(() => setCopied(true), () => undefined);
            }}
          >
            {copied ? "Link copied" : "Copy link"}
          </button>
        </div>
      </div>
      {error && (
        <div className="notice notice-bad" role="alert">
          {error.message}
        </div>
      )}
      {hasRole(me, "operator") && <OperatorPanel thread={thread} status={status} assistants={assistants} assistant={assistant} />}
      <div className="run-grid">
        <div className="run-main">
          <section className="card" aria-labelledby="messages-h">
            <h2 id="messages-h">Messages</h2>
            {messages.length === 0 ? <p className="muted">No messages in this run yet.</p> : messages.map((m) => <Message key={m.key} message={m} />)}
          </section>
          <section className="card" aria-labelledby="questions-h">
            <h2 id="questions-h">Questions</h2>
            {pending.length === 0 && resolved.length === 0 && earlier.length === 0 && <p className="muted">No questions asked.</p>}
            <ul className="questions">
              {pending.map((q) => (
                <li key={q.interrupt_id} className="question">
                  <div className="question-head">
                    <StatusPill status={q.status} />
                    <span>{summarize(q.payload, 100)}</span>
                  </div>
                  <div className="small muted">
                    {q.node && <span className="mono">{q.node}</span>} asked {ago(q.requested_at, now)}
                    {q.claimed_by && <> · claimed by {printable(q.claimed_by.name)}</>}
                  </div>
                  {requestActions(q.payload) ? (
                    <div className="question-actions">
                      <span className="small muted">{actionsNote(requestActions(q.payload)?.length ?? 0)}:</span>
                      {requestActions(q.payload)?.map((name, i) => (
                        <a key={i} className="btn btn-small" href={hrefOf({ view: "item", threadId, interruptId: `${q.interrupt_id}.${i}` })}>
                          {i + 1}. {name}
                        </a>
                      ))}
                    </div>
                  ) : (
                    <a className="btn btn-small" href={hrefOf({ view: "item", threadId, interruptId: q.interrupt_id })}>
                      {reviewer ? "Open to answer" : "Open"}
                    </a>
                  )}
                </li>
              ))}
              {[...resolved].reverse().map((r) => (
                <ResolvedQuestion key={r.interrupt_id} item={r} record={byId.get(r.interrupt_id)} now={now} actions={requestActions(r.payload)?.length} />
              ))}
              {earlier.map((r) => (
                <ResolvedQuestion key={r.interrupt_id} item={undefined} record={r} now={now} actions={undefined} />
              ))}
            </ul>
          </section>
        </div>
        <div className="run-side">
          <section className="card" aria-labelledby="timeline-h">
            <h2 id="timeline-h">Timeline</h2>
            {tree ? <Timeline tree={tree} now={now} /> : <p className="muted">Nothing has run yet.</p>}
          </section>
          <section className="card" aria-labelledby="state-h">
            <h2 id="state-h">State</h2>
            {values ? <JsonTree value={values} label="Thread state" /> : <p className="muted">No state yet.</p>}
          </section>
        </div>
      </div>
    </main>
  );
}
