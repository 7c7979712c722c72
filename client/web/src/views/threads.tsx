/**
 * Threads: the tenant's recent threads with their status per assistant, and
 * (for operators) a form that starts a run on a new thread and opens its run
 * view. The list is read again whenever the inbox changes or the connection
 * comes back.
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import type { AssistantInfo, ThreadRecordJson } from "../../../../hub/protocol/index.ts";
import { StatusPill } from "../components/status.tsx";
import { ago, shortId } from "../format.ts";
import { hasRole, useConnectionState, useNow, useQueueItems, useSession } from "../hub.tsx";
import { hrefOf, navigate } from "../router.ts";
import { INBOX_QUEUE } from "./inbox.tsx";
import { StartRunForm } from "./operator.tsx";

export function ThreadsView(): ReactNode {
  const { client, me } = useSession();
  const state = useConnectionState(client);
  const inbox = useMemo(() => client.queue(INBOX_QUEUE), [client]);
  const { items, resolved } = useQueueItems(inbox);
  const now = useNow(5000);
  const [threads, setThreads] = useState<ThreadRecordJson[] | null>(null);
  const [assistants, setAssistants] = useState<AssistantInfo[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [assistantFilter, setAssistantFilter] = useState("");

  const load = useCallback(() => {
    client.listThreads(100).then(
      (list) => (setThreads(list), setProblem(null)),
      (e: unknown) => setProblem(e instanceof Error ? e.message : String(e)),
    );
  }, [client]);
  useEffect(load, [load, items, resolved, state]);
  useEffect(() => {
    client.assistants().then(setAssistants, () => undefined);
  }, [client]);

  const shown = (threads ?? []).filter((t) => assistantFilter === "" || t.assistant_id === assistantFilter);
  const names = [...new Set((threads ?? []).map((t) => t.assistant_id).filter((a): a is string => a !== null))].sort();

  return (
    <main className="page">
      <div className="page-head">
        <div>
          <h1>Threads</h1>
          <p className="muted">Recent threads of your team; open one to watch it live.</p>
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
          <button type="button" className="btn btn-small" onClick={load}>
            Refresh
          </button>
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
      {threads === null ? (
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
