/**
 * A small LangGraph app as its docs show it: `useStream` from
 * `@langchain/langgraph-sdk/react` on the hub's LangGraph API (same origin),
 * the `review` demo assistant. The thread id lives in the URL hash, so a
 * reload comes back to the thread; `reconnectOnMount` rejoins a run that was
 * streaming when the page went away. Built by Vite in
 * test/hub/http/langgraph/use-stream.test.ts and driven there in Chromium.
 */
import { useStream } from "@langchain/langgraph-sdk/react";
import { createRoot } from "react-dom/client";

interface ReviewState extends Record<string, unknown> {
  topic?: string;
  draft?: string;
  decision?: unknown;
  finalize_calls?: number;
}

const threadFromHash = (): string | null => (window.location.hash.length > 1 ? decodeURIComponent(window.location.hash.slice(1)) : null);

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((b) => (typeof b === "object" && b && "text" in b ? String((b as { text: unknown }).text) : "")).join("") : "";

function App() {
  const stream = useStream<ReviewState>({
    apiUrl: window.location.origin,
    assistantId: "review",
    threadId: threadFromHash(),
    onThreadId: (id) => {
      window.location.hash = encodeURIComponent(id);
    },
    reconnectOnMount: true,
  });
  const ai = stream.messages.filter((m) => m.type === "ai");
  const interrupt = stream.interrupt as { id?: string; value?: { kind?: string; draft?: string } } | undefined;
  return (
    <main>
      <h1>Review</h1>
      <p aria-label="Loading">{stream.isLoading ? "streaming" : "idle"}</p>
      <button type="button" onClick={() => void stream.submit({ topic: "the hub" })}>
        Start
      </button>
      <section aria-label="Messages">
        {ai.map((m) => (
          <p key={m.id} data-testid="ai-message" data-id={m.id}>
            {textOf(m.content)}
          </p>
        ))}
      </section>
      <p data-testid="draft">{stream.values.draft ?? ""}</p>
      {interrupt ? (
        <section aria-label="Interrupt">
          <p data-testid="interrupt-kind">{interrupt.value?.kind}</p>
          <p data-testid="interrupt-id">{interrupt.id}</p>
          <button type="button" onClick={() => void stream.submit(undefined, { command: { resume: "ship it" } })}>
            Approve
          </button>
        </section>
      ) : null}
      <p data-testid="decision">{stream.values.decision === undefined ? "" : String(stream.values.decision)}</p>
      <p data-testid="finalize-calls">{String(stream.values.finalize_calls ?? "")}</p>
      <p data-testid="error">{stream.error ? String(stream.error) : ""}</p>
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(<App />);
