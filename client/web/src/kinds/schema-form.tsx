/**
 * A form generated from the item's response JSON Schema: one control per
 * property (checkbox, choice, text, number, JSON for the rest), validated
 * with @cfworker/json-schema before anything is sent. A required boolean
 * decision (`approve`) becomes Approve / Reject buttons.
 */
import { Validator } from "@cfworker/json-schema";
import { useMemo, useState, type ReactNode } from "react";
import { useDraft, type AnswerFormProps, type AnswerItem, type AnswerKind } from "./kinds.ts";
import { isRecord } from "../../../../hub/protocol/index.ts";

type Schema = Record<string, unknown>;

const typeOf = (schema: Schema): string | undefined => {
  const t = schema["type"];
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === "string" && x !== "null");
  if (Array.isArray(schema["enum"])) return "enum";
  return undefined;
};

const titleOf = (key: string, schema: Schema): string => (typeof schema["title"] === "string" ? schema["title"] : key.replace(/[_-]+/g, " ").replace(/^./, (c) => c.toUpperCase()));

/** The boolean property that decides the item (`approve`, `approved`, …), if the schema has one. */
export function decisionKey(schema: unknown): string | undefined {
  if (!isRecord(schema) || !isRecord(schema["properties"])) return undefined;
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  const booleans = Object.entries(schema["properties"]).filter(([, s]) => isRecord(s) && typeOf(s) === "boolean").map(([k]) => k);
  return booleans.find((k) => /^(approve|approved|accept|accepted|ok)$/i.test(k)) ?? (booleans.length === 1 && required.includes(booleans[0]) ? booleans[0] : undefined);
}

/** One problem with the answer, in words, and the field it belongs to ("" for the answer as a whole). */
export interface FormError {
  field: string;
  message: string;
}

/** The schema at a keyword location such as `#/properties/comment/minLength` (its parent's value). */
function keywordValue(schema: unknown, location: string): unknown {
  let at: unknown = schema;
  for (const part of location.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    if (!isRecord(at)) return undefined;
    at = at[decodeURIComponent(part.replace(/~1/g, "/").replace(/~0/g, "~"))];
  }
  return at;
}

const quoted = (text: string): string | undefined => /"([^"]+)"/.exec(text)?.[1];

/** The validator's findings as a person reads them: "Comment is required", "At least 5 characters". */
export function formErrors(schema: unknown, value: unknown): FormError[] {
  if (!isRecord(schema) && typeof schema !== "boolean") return [];
  const result = new Validator(schema as Schema | boolean, "2020-12", false).validate(value);
  if (result.valid) return [];
  const props = isRecord(schema) && isRecord(schema["properties"]) ? schema["properties"] : {};
  const title = (key: string) => titleOf(key, isRecord(props[key]) ? (props[key] as Schema) : {});
  const out: FormError[] = [];
  for (const e of result.errors) {
    const field = e.instanceLocation.replace(/^#\/?/, "").split("/")[0] ?? "";
    const limit = keywordValue(schema, e.keywordLocation);
    let message: string | undefined;
    switch (e.keyword) {
      case "properties":
      case "allOf":
      case "anyOf":
      case "oneOf":
      case "items":
      case "$ref":
      case "false":
        // Wrappers repeat what their leaf errors say.
        if (result.errors.length > 1) continue;
        message = e.error;
        break;
      case "required": {
        const key = quoted(e.error) ?? "";
        out.push({ field: key, message: `${title(key)} is required.` });
        continue;
      }
      case "additionalProperties":
        message = `${quoted(e.error) ?? "A field"} is not part of this answer.`;
        break;
      case "minLength":
        message = `At least ${String(limit)} character${limit === 1 ? "" : "s"}.`;
        break;
      case "maxLength":
        message = `At most ${String(limit)} characters.`;
        break;
      case "minimum":
        message = `At least ${String(limit)}.`;
        break;
      case "maximum":
        message = `At most ${String(limit)}.`;
        break;
      case "enum":
        message = Array.isArray(limit) ? `Choose one of ${limit.map(String).join(", ")}.` : e.error;
        break;
      case "type":
        message = `Must be ${Array.isArray(limit) ? limit.join(" or ") : String(limit)}.`;
        break;
      default:
        message = e.error;
    }
    out.push({ field, message });
  }
  return out;
}

function initialValue(schema: Schema): unknown {
  if ("default" in schema) return schema["default"];
  switch (typeOf(schema)) {
    case "object": {
      const props = isRecord(schema["properties"]) ? schema["properties"] : {};
      return Object.fromEntries(Object.entries(props).flatMap(([k, s]) => (isRecord(s) && "default" in s ? [[k, s["default"]]] : [])));
    }
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return undefined;
  }
}

interface FieldProps {
  name: string;
  schema: Schema;
  value: unknown;
  onChange(value: unknown): void;
  disabled: boolean;
  error?: string | undefined;
  required: boolean;
}

function Field({ name, schema, value, onChange, disabled, error, required }: FieldProps): ReactNode {
  const title = `${titleOf(name, schema)}${required ? "" : " (optional)"}`;
  const hint = typeof schema["description"] === "string" ? <span className="field-hint">{schema["description"]}</span> : null;
  const err = error ? (
    <span className="field-error" role="alert">
      {error}
    </span>
  ) : null;
  const options = Array.isArray(schema["enum"]) ? schema["enum"] : null;
  const type = typeOf(schema);
  if (options) {
    return (
      <fieldset className="field">
        <legend className="field-label">{title}</legend>
        {hint}
        <div className="choice-row">
          {options.map((option) => (
            <label key={JSON.stringify(option)} className="choice">
              <input type="radio" name={name} checked={value === option} disabled={disabled} onChange={() => onChange(option)} />
              <span>{String(option)}</span>
            </label>
          ))}
        </div>
        {err}
      </fieldset>
    );
  }
  if (type === "boolean") {
    return (
      <label className="field field-inline">
        <input type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
        <span className="field-label">{title}</span>
        {hint}
        {err}
      </label>
    );
  }
  if (type === "string") {
    const long = (typeof schema["maxLength"] === "number" ? schema["maxLength"] > 120 : true) && /comment|reason|note|feedback|text|message|why|body|response/i.test(name);
    const text = typeof value === "string" ? value : "";
    return (
      <label className="field">
        <span className="field-label">{title}</span>
        {hint}
        {long ? (
          <textarea rows={3} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value === "" && !required ? undefined : e.target.value)} />
        ) : (
          <input type="text" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value === "" && !required ? undefined : e.target.value)} />
        )}
        {err}
      </label>
    );
  }
  if (type === "number" || type === "integer") {
    return (
      <label className="field">
        <span className="field-label">{title}</span>
        {hint}
        <input
          type="number"
          step={type === "integer" ? 1 : "any"}
          value={typeof value === "number" ? value : ""}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
        {err}
      </label>
    );
  }
  return <JsonField title={title} value={value} onChange={onChange} disabled={disabled} error={error} />;
}

function JsonField({ title, value, onChange, disabled, error }: { title: string; value: unknown; onChange(v: unknown): void; disabled: boolean; error?: string | undefined }): ReactNode {
  const [text, setText] = useState(() => (value === undefined ? "" : JSON.stringify(value, null, 2)));
  const [bad, setBad] = useState<string | null>(null);
  return (
    <label className="field">
      <span className="field-label">{title} (JSON)</span>
      <textarea
        className="mono"
        rows={3}
        value={text}
        disabled={disabled}
        onChange={(e) => {
          setText(e.target.value);
          try {
            onChange(e.target.value.trim() === "" ? undefined : JSON.parse(e.target.value));
            setBad(null);
          } catch (x) {
            setBad(x instanceof Error ? x.message : "invalid JSON");
          }
        }}
      />
      {(bad ?? error) && (
        <span className="field-error" role="alert">
          {bad ?? error}
        </span>
      )}
    </label>
  );
}

function SchemaForm({ item, disabled, submit, draftKey }: AnswerFormProps): ReactNode {
  const schema = isRecord(item.responseSchema) ? item.responseSchema : {};
  const [value, setValue] = useDraft<unknown>(`${draftKey}.form`, initialValue(schema));
  const [errors, setErrors] = useState<FormError[]>([]);
  const objectSchema = typeOf(schema) === "object" || isRecord(schema["properties"]);
  const props = objectSchema && isRecord(schema["properties"]) ? schema["properties"] : {};
  const required = Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : [];
  const decision = useMemo(() => decisionKey(schema), [schema]);

  const send = (answer: unknown) => {
    const found = formErrors(schema, answer);
    setErrors(found);
    if (found.length === 0) submit(answer);
  };
  const errorAt = (key: string) => errors.find((e) => e.field === key)?.message;
  const record = isRecord(value) ? value : {};
  const set = (key: string, v: unknown) => {
    const { [key]: _old, ...rest } = record;
    setValue(v === undefined ? rest : { ...rest, [key]: v });
  };

  if (!objectSchema) {
    return (
      <form className="schema-form" onSubmit={(e) => (e.preventDefault(), send(value))}>
        <Field name="answer" schema={schema} value={value} onChange={setValue} disabled={disabled} required error={errors[0]?.message} />
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={disabled}>
            Send answer
          </button>
        </div>
      </form>
    );
  }
  const fields = Object.entries(props).filter(([key, s]) => isRecord(s) && key !== decision);
  const general = errors.filter((e) => !fields.some(([k]) => e.field === k));
  return (
    <form className="schema-form" onSubmit={(e) => (e.preventDefault(), send(decision ? { ...record, [decision]: true } : record))}>
      {fields.map(([key, s]) => (
        <Field key={key} name={key} schema={s as Schema} value={record[key]} onChange={(v) => set(key, v)} disabled={disabled} required={required.includes(key)} error={errorAt(key)} />
      ))}
      {general.map((e, i) => (
        <p key={`${e.field}-${i}`} className="field-error" role="alert">
          {e.message}
        </p>
      ))}
      <div className="actions">
        {decision ? (
          <>
            <button type="submit" className="btn btn-primary" data-shortcut="approve" disabled={disabled}>
              Approve
            </button>
            <button type="button" className="btn btn-danger" disabled={disabled} onClick={() => send({ ...record, [decision]: false })}>
              Reject
            </button>
          </>
        ) : (
          <button type="submit" className="btn btn-primary" disabled={disabled}>
            Send answer
          </button>
        )}
      </div>
    </form>
  );
}

export const schemaFormKind: AnswerKind = {
  id: "schema-form",
  label: "generated from the question's response schema",
  matches: (item: AnswerItem) => isRecord(item.responseSchema) && Object.keys(item.responseSchema).length > 0,
  Form: SchemaForm,
};
