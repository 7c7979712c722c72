/**
 * The fallback answer form: a JSON editor that refuses invalid JSON, plus
 * Approve / Reject as the project's approval convention (`{ "approve": true }`,
 * what the README's quick start sends), for items that declare nothing.
 */
import { useState, type ReactNode } from "react";
import { useDraft, type AnswerFormProps, type AnswerKind } from "./kinds.ts";

function parse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: false, message: "Type a JSON value, e.g. true, \"yes\" or {\"approve\": true}" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : "invalid JSON" };
  }
}

function JsonAnswerForm({ disabled, submit, draftKey }: AnswerFormProps): ReactNode {
  const [text, setText] = useDraft(`${draftKey}.json`, "");
  const [touched, setTouched] = useState(false);
  const parsed = parse(text);
  return (
    <div className="json-answer">
      <div className="actions">
        <button type="button" className="btn btn-primary" data-shortcut="approve" disabled={disabled} onClick={() => submit({ approve: true })}>
          Approve
        </button>
        <button type="button" className="btn btn-danger" disabled={disabled} onClick={() => submit({ approve: false })}>
          Reject
        </button>
        <span className="hint">
          sends <code>{'{"approve": true}'}</code> / <code>{'{"approve": false}'}</code>
        </span>
      </div>
      <form
        className="json-editor"
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (parsed.ok) submit(parsed.value);
        }}
      >
        <label className="field">
          <span className="field-label">Or answer with any JSON value</span>
          <textarea className="mono" rows={4} value={text} disabled={disabled} spellCheck={false} aria-invalid={touched && !parsed.ok} onChange={(e) => setText(e.target.value)} onBlur={() => setTouched(true)} />
        </label>
        {touched && !parsed.ok && (
          <p className="field-error" role="alert">
            Not valid JSON: {parsed.message}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="btn" disabled={disabled || !parsed.ok}>
            Send JSON answer
          </button>
        </div>
      </form>
    </div>
  );
}

export const jsonAnswerKind: AnswerKind = {
  id: "json",
  label: "any JSON value (the question declares no response schema)",
  matches: () => true,
  Form: JsonAnswerForm,
};
