/**
 * Agent Inbox's HumanInterrupt as a form: Accept / Edit / Respond / Ignore as
 * the item's `config` allows, with the action's args editable. The answer is
 * Agent Inbox's `HumanResponse` (`{ type, args }`), in a list when the payload
 * was a list, as `interrupt([request])[0]` expects.
 */
import { useState, type ReactNode } from "react";
import { JsonTree } from "../components/json-tree.tsx";
import { humanInterruptOf, useDraft, type AnswerFormProps, type AnswerItem, type AnswerKind } from "./kinds.ts";

type Mode = "view" | "edit" | "respond";

function wrap(item: AnswerItem, response: { type: string; args: unknown }): unknown {
  return humanInterruptOf(item.payload)?.list ? [response] : response;
}

/** One input per argument: text for strings, JSON for the rest. */
function ArgsEditor({ args, onChange, disabled }: { args: Record<string, string>; onChange(next: Record<string, string>): void; disabled: boolean }): ReactNode {
  return (
    <div className="form-grid">
      {Object.entries(args).map(([key, text]) => (
        <label key={key} className="field">
          <span className="field-label">{key}</span>
          <textarea rows={Math.min(6, Math.max(1, text.split("\n").length))} value={text} disabled={disabled} onChange={(e) => onChange({ ...args, [key]: e.target.value })} />
        </label>
      ))}
    </div>
  );
}

function HumanInterruptForm({ item, disabled, submit, draftKey }: AnswerFormProps): ReactNode {
  const found = humanInterruptOf(item.payload);
  const request = found?.request;
  const initialArgs = Object.fromEntries(Object.entries(request?.action_request.args ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v, null, 2)]));
  const [mode, setMode] = useState<Mode>("view");
  const [args, setArgs] = useDraft<Record<string, string>>(`${draftKey}.args`, initialArgs);
  const [reply, setReply] = useDraft<string>(`${draftKey}.reply`, "");
  const [error, setError] = useState<string | null>(null);
  if (!request) return null;
  const { config } = request;

  const sendEdit = () => {
    const parsed: Record<string, unknown> = {};
    for (const [key, text] of Object.entries(args)) {
      const original = request.action_request.args[key];
      if (typeof original === "string") parsed[key] = text;
      else {
        try {
          parsed[key] = JSON.parse(text);
        } catch {
          return setError(`${key} is not valid JSON`);
        }
      }
    }
    setError(null);
    submit(wrap(item, { type: "edit", args: { action: request.action_request.action, args: parsed } }));
  };

  return (
    <div className="hi-form">
      <div className="hi-action">
        <span className="hi-action-name">{request.action_request.action}</span>
        {mode !== "edit" && <JsonTree value={request.action_request.args} label="Action arguments" />}
      </div>
      {mode === "edit" && <ArgsEditor args={args} onChange={setArgs} disabled={disabled} />}
      {mode === "respond" && (
        <label className="field">
          <span className="field-label">Your response</span>
          <textarea rows={4} value={reply} disabled={disabled} onChange={(e) => setReply(e.target.value)} />
        </label>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        {mode === "view" && (
          <>
            {config.allow_accept && (
              <button type="button" className="btn btn-primary" data-shortcut="approve" disabled={disabled} onClick={() => submit(wrap(item, { type: "accept", args: null }))}>
                Accept
              </button>
            )}
            {config.allow_edit && (
              <button type="button" className="btn" disabled={disabled} onClick={() => setMode("edit")}>
                Edit
              </button>
            )}
            {config.allow_respond && (
              <button type="button" className="btn" disabled={disabled} onClick={() => setMode("respond")}>
                Respond
              </button>
            )}
            {config.allow_ignore && (
              <button type="button" className="btn btn-quiet" disabled={disabled} onClick={() => submit(wrap(item, { type: "ignore", args: null }))}>
                Ignore
              </button>
            )}
          </>
        )}
        {mode === "edit" && (
          <>
            <button type="button" className="btn btn-primary" disabled={disabled} onClick={sendEdit}>
              Send edited action
            </button>
            <button type="button" className="btn btn-quiet" onClick={() => setMode("view")}>
              Back
            </button>
          </>
        )}
        {mode === "respond" && (
          <>
            <button type="button" className="btn btn-primary" disabled={disabled || reply.trim() === ""} onClick={() => submit(wrap(item, { type: "response", args: reply }))}>
              Send response
            </button>
            <button type="button" className="btn btn-quiet" onClick={() => setMode("view")}>
              Back
            </button>
          </>
        )}
      </div>
    </div>
  );
}

export const humanInterruptKind: AnswerKind = {
  id: "human-interrupt",
  label: "an Agent Inbox action (accept, edit, respond, ignore)",
  matches: (item) => humanInterruptOf(item.payload) !== null,
  Form: HumanInterruptForm,
};
