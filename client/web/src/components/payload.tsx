/**
 * An interrupt payload for a person: prose fields (a `draft`) as Markdown,
 * short text as labelled values, everything else as a collapsible JSON tree;
 * the whole payload stays one click away. The routing field `review` is shown
 * by the item view, not here.
 */
import type { ReactNode } from "react";
import { JsonTree } from "./json-tree.tsx";
import { humanInterruptOf, proposedCallOf } from "../kinds/kinds.ts";
import { Markdown, looksLikeProse } from "./markdown.tsx";
import { isRecord } from "../../../../hub/protocol/index.ts";

const label = (key: string) => key.replace(/[_-]+/g, " ").replace(/^./, (c) => c.toUpperCase());

/** An Agent Inbox request or a human-in-the-loop tool call: its description in words, the action and its arguments. */
function ActionRequestView({ payload }: { payload: unknown }): ReactNode {
  const inbox = humanInterruptOf(payload)?.request;
  const call = inbox ? undefined : proposedCallOf(payload);
  const found = inbox ? { description: inbox.description, name: inbox.action_request.action, args: inbox.action_request.args } : call;
  if (!found) return null;
  const { description } = found;
  const action_request = { action: found.name, args: found.args };
  return (
    <div className="payload">
      {description !== undefined && <Markdown text={description} label="Description" />}
      <dl className="facts">
        <div className="fact">
          <dt>Action</dt>
          <dd className="mono">{action_request.action}</dd>
        </div>
      </dl>
      <h3 className="field-title">Arguments</h3>
      <JsonTree value={action_request.args} label="Arguments" />
      <details className="raw">
        <summary>Raw payload</summary>
        <JsonTree value={payload} label="Raw payload" openDepth={1} />
      </details>
    </div>
  );
}

export function PayloadView({ payload }: { payload: unknown }): ReactNode {
  if (humanInterruptOf(payload) || proposedCallOf(payload)?.count === 1) return <ActionRequestView payload={payload} />;
  if (typeof payload === "string") return looksLikeProse(payload) ? <Markdown text={payload} label="Question" /> : <p className="payload-text">{payload}</p>;
  if (!isRecord(payload)) return <JsonTree value={payload} label="Payload" />;
  const entries = Object.entries(payload).filter(([k]) => k !== "review");
  const facts = entries.filter(([, v]) => (typeof v === "string" && !looksLikeProse(v)) || typeof v === "number" || typeof v === "boolean");
  const prose = entries.filter(([, v]) => typeof v === "string" && looksLikeProse(v));
  const trees = entries.filter(([, v]) => typeof v === "object" && v !== null);
  return (
    <div className="payload">
      {facts.length > 0 && (
        <dl className="facts">
          {facts.map(([k, v]) => (
            <div key={k} className="fact">
              <dt>{label(k)}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {prose.map(([k, v]) => (
        <section key={k} className="prose-field" aria-label={label(k)}>
          <h3 className="field-title">{label(k)}</h3>
          <Markdown text={String(v)} />
        </section>
      ))}
      {trees.map(([k, v]) => (
        <section key={k} className="tree-field">
          <h3 className="field-title">{label(k)}</h3>
          <JsonTree value={v} label={label(k)} />
        </section>
      ))}
      <details className="raw">
        <summary>Raw payload</summary>
        <JsonTree value={payload} label="Raw payload" openDepth={1} />
      </details>
    </div>
  );
}
