/**
 * One action of a multi-action interrupt in LangChain's human-in-the-loop
 * shape (docs/PROTOCOL.md, per-action decisions): the tool call, and a button
 * for each decision its config allows — Approve, Edit (the args, field by
 * field, sent as `edited_action`), Reject (with a message the agent reads),
 * Respond. The answer is one decision; the hub assembles the interrupt's
 * `{ decisions: [...] }` once every action is decided.
 */
import { useState, type ReactNode } from "react";
import { JsonTree } from "../components/json-tree.tsx";
import { proposedCallOf, useDraft, type AnswerFormProps, type AnswerKind } from "./kinds.ts";

type Mode = "view" | "edit" | "reject" | "respond";

const LABELS: Record<string, string> = { approve: "Approve", edit: "Edit", reject: "Reject", respond: "Respond" };

function ToolActionForm({ item, disabled, submit, draftKey }: AnswerFormProps): ReactNode {
  const call = proposedCallOf(item.payload);
  const action = item.action;
  const initialArgs = Object.fromEntries(Object.entries(call?.args ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v, null, 2)]));
  const [mode, setMode] = useState<Mode>("view");
  const [args, setArgs] = useDraft<Record<string, string>>(`${draftKey}.args`, initialArgs);
  const [message, setMessage] = useDraft<string>(`${draftKey}.message`, "");
  const [error, setError] = useState<string | null>(null);
  if (!call || !action) return null;
  const allowed = action.allowed;
  const editedKey = action.format === "hitl-camel" ? "editedAction" : "edited_action";

  const sendEdit = () => {
    const parsed: Record<string, unknown> = {};
    for (const [key, text] of Object.entries(args)) {
      if (typeof call.args[key] === "string") parsed[key] = text;
      else {
        try {
          parsed[key] = JSON.parse(text);
        } catch {
          return setError(`${key} is not valid JSON`);
        }
      }
    }
    setError(null);
    submit({ type: "edit", [editedKey]: { name: call.name, args: parsed } });
  };

  return (
    <div className="hi-form tool-action">
      {action.count > 1 && (
        <p className="small muted">
          Action {action.index + 1} of {action.count} the agent proposed in one request — each is decided on its own; the agent continues once all are.
        </p>
      )}
      <div className="hi-action">
        <span className="hi-action-name">{call.name}</span>
        {mode !== "edit" && <JsonTree value={call.args} label="Action arguments" />}
      </div>
      {mode === "edit" && (
        <div className="form-grid">
          {Object.entries(args).map(([key, text]) => (
            <label key={key} className="field">
              <span className="field-label">{key}</span>
              <textarea rows={Math.min(6, Math.max(1, text.split("\n").length))} value={text} disabled={disabled} onChange={(e) => setArgs({ ...args, [key]: e.target.value })} />
            </label>
          ))}
        </div>
      )}
      {(mode === "reject" || mode === "respond") && (
        <label className="field">
          <span className="field-label">{mode === "reject" ? "Why (the agent reads it; optional)" : "Your response"}</span>
          <textarea rows={3} value={message} disabled={disabled} onChange={(e) => setMessage(e.target.value)} />
        </label>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        {mode === "view" &&
          allowed.map((type) =>
            type === "approve" ? (
              <button key={type} type="button" className="btn btn-primary" data-shortcut="approve" disabled={disabled} onClick={() => submit({ type: "approve" })}>
                Approve
              </button>
            ) : (
              <button key={type} type="button" className={type === "reject" ? "btn btn-danger" : "btn"} disabled={disabled} onClick={() => setMode(type as Mode)}>
                {LABELS[type] ?? type}
              </button>
            ),
          )}
        {mode === "edit" && (
          <button type="button" className="btn btn-primary" disabled={disabled} onClick={sendEdit}>
            Send edited action
          </button>
        )}
        {mode === "reject" && (
          <button type="button" className="btn btn-danger" disabled={disabled} onClick={() => submit(message.trim() === "" ? { type: "reject" } : { type: "reject", message: message.trim() })}>
            Send rejection
          </button>
        )}
        {mode === "respond" && (
          <button type="button" className="btn btn-primary" disabled={disabled || message.trim() === ""} onClick={() => submit({ type: "respond", message: message.trim() })}>
            Send response
          </button>
        )}
        {mode !== "view" && (
          <button type="button" className="btn btn-quiet" onClick={() => setMode("view")}>
            Back
          </button>
        )}
      </div>
      {allowed.length === 0 && <p className="muted">Its config allows no decision.</p>}
    </div>
  );
}

export const toolActionKind: AnswerKind = {
  id: "tool-action",
  label: "one tool call of a multi-action request",
  matches: (item) => item.action !== undefined && item.action.format !== "agent-inbox" && proposedCallOf(item.payload) !== null,
  Form: ToolActionForm,
};
