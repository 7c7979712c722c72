/**
 * Threads: the tenant's recent threads with their status per assistant,
 * pushed live by the hub (`client.threads()`: a snapshot, then every change),
 * and (for operators) a form that starts a run on a new thread and opens its
 * run view.
 */
import { useEffect, useMemo, useState, type ReactNode } from "react";
import type { ThreadListEvents } from "../../../index.ts";
import type { AssistantInfo, ThreadRecordJson } from "../../../../hub/protocol/index.ts";
import { StatusPill } from "../components/status.tsx";
import { ago, shortId } from "../format.ts";
import { hasRole, useNow, useSession, useSlice } from "../hub.tsx";
import { hrefOf, navigate } from "../router.ts";
import { StartRunForm } from "./operator.tsx";

/** How many threads the page follows (the hub's snapshot limit is 200). */
const SHOWN = 100;

export function ThreadsView(): ReactNode {
  const { client, me } = useSession();
  const list = useMemo(() => client.threads(), [client]);
  const threads = useSlice<ThreadListEvents, "threads", readonly ThreadRecordJson[]>(list, "threads", () => list.threads);
  const now = useNow(5000);
  const [ready, setReady] = useState(list.subscribed);
  const [assistants, setAssistants] = useState<AssistantInfo[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [assistantFilter, setAssistantFilter] = useState("");

  // Followed while the page is shown; the SDK restores it after a reconnect.
  useEffect(() => {
    let gone = false;
    list.subscribe(SHOWN).then(
      () => !gone && (setReady(true), setProblem(null)),
      (e: unknown) => !gone && setProblem(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      gone = true;
      void list.unsubscribe().catch(() => undefined);
    };
  }, [list]);
  useEffect(() => {
    client.assistants().then(setAssistants, () => undefined);
  }, [client]);

  const shown = threads.filter((t) => assistantFilter === "" || t.assistant_id === assistantFilter);
  const names = [...new Set(threads.map((t) => t.assistant_id).filter((a): a is string => a !== null))].sort();

  return (
    <main className="page">
      <div className="page-head">
        <div>
          <h1>Threads</h1>
          <p className="muted">Recent threads of your team, updated live; open one to watch its run.</p>
        </div>
        <div className="toolbar">
          <label className="select">
            <span>Assistant</span>
            <select value={assistantFilter} onChange={(e) => setAssistantFilter(e.target.value)}>
              <option value="">All assistants</option>
              {names.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {hasRole(me, "operator") && assistants.length > 0 && (
        <section className="card operator" aria-label="Start a run">
          <StartRunForm
            assistants={assistants}
            label="Start run on a new thread"
            onStart={async (assistant, input) => {
              const thread = client.thread();
              await thread.run(assistant, input);
              navigate({ view: "thread", threadId: thread.id });
            }}
          />
        </section>
      )}
      {problem && (
        <p className="notice notice-bad" role="alert">
          {problem}
        </p>
      )}
      {!ready && threads.length === 0 ? (
        <p className="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <div className="empty">
          <p>No threads yet.</p>
        </div>
      ) : (
        <table className="inbox" aria-label="Threads">
          <thead>
            <tr>
              <th scope="col">Thread</th>
              <th scope="col">Assistant</th>
              <th scope="col">Status</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={t.thread_id}>
                <td>
                  <a href={hrefOf({ view: "thread", threadId: t.thread_id })} className="mono" aria-label={`Thread ${t.thread_id}`}>
                    {shortId(t.thread_id, 14)}
                  </a>
                </td>
                <td>{t.assistant_id ?? <span className="muted">—</span>}</td>
                <td>
                  <StatusPill status={t.status} />
                </td>
                <td className="muted">{ago(Date.parse(t.updated_at), now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
