/**
 * The page an answer link opens (`#/link/<interrupt>/<token>`): no sign-in —
 * the signed link is the credential. It shows the item to the candidate the
 * link names and lets them answer once, with the form the item declares; a
 * used, expired, tampered or other item's link says so in words.
 */
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { printable } from "../../../index.ts";
import { PayloadView } from "../components/payload.tsx";
import { StatusPill } from "../components/status.tsx";
import { clockTime } from "../format.ts";
import { kindFor } from "../kinds/index.ts";
import type { ReviewActionJson } from "../../../../hub/protocol/index.ts";

interface LinkPageData {
  link: { sub: string; name: string; expires_at: number };
  item: {
    interrupt_id: string;
    thread_id: string;
    payload: unknown;
    /** What this page shows; the answer is bound to it (a changed item refuses it as stale). */
    payload_digest?: string;
    /** Set when the item is one action of a multi-action interrupt. */
    action?: ReviewActionJson | null;
    status: string;
    routing: { response_schema?: unknown };
    answer: { answered_by: { name: string }; answered_at: number } | null;
  };
}

interface Refusal {
  error: string;
  message: string;
  details?: { link?: string; used_at?: number; expired_at?: number; answered_by?: { name?: string } };
}

type State = { kind: "loading" } | { kind: "refused"; refusal: Refusal } | { kind: "ready"; data: LinkPageData } | { kind: "answered"; data: LinkPageData; by: string };

/** A refusal for a person: what happened to the link, or to the item. */
export function linkRefusalText(r: Refusal): string {
  switch (r.details?.link) {
    case "used":
      return `This link was already used${r.details.used_at ? ` (${clockTime(r.details.used_at)})` : ""}. Each answer link works once.`;
    case "expired":
      return `This link expired${r.details.expired_at ? ` at ${clockTime(r.details.expired_at)}` : ""}. Ask for a new one.`;
    case "other_item":
      return "This link is for another item.";
    case "invalid":
      return "This link is not valid: it may have been cut short or changed.";
    default:
      if (r.error === "already_answered") return `${printable(r.details?.answered_by?.name ?? "Someone")} answered first. Your answer was not sent.`;
      return r.message;
  }
}

async function asRefusal(response: Response): Promise<Refusal> {
  try {
    return (await response.json()) as Refusal;
  } catch {
    return { error: "unknown", message: `The hub answered ${response.status}.` };
  }
}

export function LinkPage({ interruptId, token }: { interruptId: string; token: string }): ReactNode {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [sending, setSending] = useState(false);
  const [answerError, setAnswerError] = useState<string | null>(null);
  const api = `/links/${encodeURIComponent(interruptId)}/${encodeURIComponent(token)}`;

  useEffect(() => {
    let live = true;
    void fetch(api, { cache: "no-store" }).then(async (response) => {
      if (!live) return;
      if (!response.ok) return setState({ kind: "refused", refusal: await asRefusal(response) });
      setState({ kind: "ready", data: (await response.json()) as LinkPageData });
    }, (error: unknown) => live && setState({ kind: "refused", refusal: { error: "connection_lost", message: `The hub did not answer: ${String(error)}` } }));
    return () => {
      live = false;
    };
  }, [api]);

  const submit = useCallback(
    (value: unknown) => {
      if (state.kind !== "ready") return;
      setSending(true);
      setAnswerError(null);
      void fetch(`${api}/answer`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ response: value, ...(state.data.item.payload_digest ? { payload_digest: state.data.item.payload_digest } : {}) }) })
        .then(async (response) => {
          if (response.ok) {
            const body = (await response.json()) as { answered_by?: { name: string } };
            return setState({ kind: "answered", data: state.data, by: body.answered_by?.name ?? state.data.link.name });
          }
          const refusal = await asRefusal(response);
          // A refusal that leaves the item open keeps the link usable: the form stays, with the reason.
          if (refusal.error === "invalid_argument") setAnswerError(`The hub refused the answer: ${refusal.message}`);
          else if (refusal.error === "stale_payload") setAnswerError("This item changed since this page showed it. Reload the page to see what is asked now; the link still works.");
          else if (refusal.error === "claim_held" || refusal.error === "unavailable") setAnswerError(`Not answered yet: ${refusal.message} The link still works.`);
          else setState({ kind: "refused", refusal });
        })
        .catch((error: unknown) => setAnswerError(`The hub did not answer: ${String(error)}`))
        .finally(() => setSending(false));
    },
    [api, state],
  );

  if (state.kind === "loading") {
    return (
      <main className="center-page" aria-busy="true">
        <p className="muted">Opening the link…</p>
      </main>
    );
  }
  if (state.kind === "refused") {
    return (
      <main className="center-page">
        <div className="card narrow">
          <h1>This link cannot be used</h1>
          <p className="notice notice-bad" role="alert">
            {linkRefusalText(state.refusal)}
          </p>
        </div>
      </main>
    );
  }
  const { data } = state;
  const item = data.item;
  // One action of a multi-action request answers with the decisions its config allows, as on the item page.
  const answerItem = { interruptId: item.interrupt_id, payload: item.payload, responseSchema: item.routing.response_schema, action: item.action ?? undefined };
  const kind = kindFor(answerItem);
  const Form = kind.Form;
  const pending = item.status === "open" || item.status === "claimed";
  return (
    <main className="page item-page">
      <div className="item-head">
        <h1>A question for {printable(data.link.name)}</h1>
        <div className="meta-row">
          <StatusPill status={state.kind === "answered" ? "answered" : item.status} />
          <span className="muted">link valid until {new Date(data.link.expires_at).toLocaleString()}</span>
        </div>
      </div>
      <div className="item-grid">
        <section className="card" aria-labelledby="asked-h">
          <h2 id="asked-h">What is asked</h2>
          <PayloadView payload={item.payload} />
        </section>
        <section className="card answer" aria-labelledby="answer-h">
          <h2 id="answer-h">Your answer</h2>
          {state.kind === "answered" && (
            <p className="notice notice-ok" role="status">
              Answered by {printable(state.by)}. Thank you — this link is now used.
            </p>
          )}
          {state.kind === "ready" && !pending && (
            <p className="notice notice-info" role="note">
              {item.answer ? `${printable(item.answer.answered_by.name)} already answered this question.` : `This question is ${item.status}.`}
            </p>
          )}
          {answerError && (
            <p className="notice notice-bad" role="alert">
              {answerError}
            </p>
          )}
          {state.kind === "ready" && pending && <Form item={answerItem} disabled={sending} submit={submit} draftKey={`link.${item.interrupt_id}`} />}
          <p className="hint">Answering as {printable(data.link.name)} through a single-use link; no sign-in needed.</p>
        </section>
      </div>
    </main>
  );
}
