/**
 * Operator controls: start a run of an assistant with JSON input (on this
 * thread, or on a new one from the threads list), continue a stopped thread,
 * cancel the active run. Refusals are shown with the hub's reason.
 */
import { useState, type ReactNode } from "react";
import { HubClientError, type RunView, type ThreadHandle } from "../../../index.ts";
import type { AssistantInfo } from "../../../../hub/protocol/index.ts";

const EXAMPLES: Record<string, string> = { review: '{ "topic": "the release" }', "parallel-review": "{}" };

export function StartRunForm({ assistants, initial, onStart, label = "Start run" }: { assistants: readonly AssistantInfo[]; initial?: string | undefined; onStart(assistant: string, input: unknown): Promise<void>; label?: string }): ReactNode {
  const [assistant, setAssistant] = useState(initial ?? assistants[0]?.assistant_id ?? "");
  const chosen = assistant || assistants[0]?.assistant_id || "";
  const [text, setText] = useState(EXAMPLES[chosen] ?? "{}");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    let input: unknown;
    try {
      input = text.trim() === "" ? null : JSON.parse(text);
    } catch (error) {
      return setProblem(`Input is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    setProblem(null);
    setBusy(true);
    try {
      await onStart(chosen, input);
    } catch (error) {
      setProblem(error instanceof HubClientError ? `${error.code}: ${error.message}` : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="start-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="select">
        <span>Assistant</span>
        <select
          value={chosen}
          onChange={(e) => {
            setAssistant(e.target.value);
            setText(EXAMPLES[e.target.value] ?? "{}");
          }}
        >
          {assistants.map((a) => (
            <option key={a.assistant_id} value={a.assistant_id}>
              {a.assistant_id}
            </option>
          ))}
        </select>
      </label>
      <label className="field grow">
        <span className="field-label">Input (JSON)</span>
        <input type="text" className="mono" value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />
      </label>
      <button type="submit" className="btn btn-primary" disabled={busy || chosen === ""}>
        {label}
      </button>
      {problem && (
        <p className="field-error full" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

export function OperatorPanel({ thread, status, assistants, assistant }: { thread: ThreadHandle; status: RunView; assistants: readonly AssistantInfo[]; assistant: string | undefined }): ReactNode {
  const [problem, setProblem] = useState<string | null>(null);
  const active = status.status === "running" || status.status === "started";
  const stopped = status.status === "failed" || status.status === "cancelled";
  const act = (work: Promise<unknown>) =>
    work.then(
      () => setProblem(null),
      (e: unknown) => setProblem(e instanceof HubClientError ? `${e.code}: ${e.message}` : String(e)),
    );
  return (
    <section className="card operator" aria-label="Operator controls">
      {active ? (
        <div className="actions">
          <span className="muted">A run is in progress.</span>
          <button type="button" className="btn btn-danger" onClick={() => void act(thread.cancel())}>
            Cancel run
          </button>
        </div>
      ) : (
        <div className="operator-row">
          {stopped && assistant && (
            <button type="button" className="btn" onClick={() => void act(thread.run(assistant, null))}>
              Continue from the last checkpoint
            </button>
          )}
          {status.status !== "interrupted" && assistants.length > 0 && (
            <StartRunForm key={assistant ?? ""} assistants={assistant ? assistants.filter((a) => a.assistant_id === assistant) : assistants} initial={assistant} onStart={async (id, input) => void (await thread.run(id, input))} />
          )}
          {status.status === "interrupted" && <span className="muted">The run waits for its questions to be answered.</span>}
        </div>
      )}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
