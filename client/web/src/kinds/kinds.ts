/**
 * Answer kinds: how an item is answered follows what it declares. Each kind
 * says whether it fits an item and renders its form; the item view takes the
 * first that fits. New review workflows (quorum votes, per-action decisions)
 * slot in as new kinds ahead of the generic ones.
 */
import { useCallback, useState, type ComponentType } from "react";
import { isRecord, type ReviewActionJson } from "../../../../hub/protocol/index.ts";

export interface AnswerItem {
  interruptId: string;
  payload: unknown;
  /** The routing's response JSON Schema, when the item has one. */
  responseSchema: unknown;
  /** The item is one action of a multi-action interrupt (docs/PROTOCOL.md, per-action decisions). */
  action?: ReviewActionJson | undefined;
}

export interface AnswerFormProps {
  item: AnswerItem;
  /** Read-only (an observer, not a candidate, answered already) or sending. */
  disabled: boolean;
  /** Sends the answer; the item view shows the outcome. */
  submit(value: unknown): void;
  /** Where the form keeps what the person typed, across refusals and navigation. */
  draftKey: string;
}

export interface AnswerKind {
  id: string;
  /** What the form is, for people ("Agent Inbox action", "Form", "JSON"). */
  label: string;
  matches(item: AnswerItem): boolean;
  /** Marks its approve button `data-shortcut="approve"`: the `a` key presses it (with what was typed). */
  Form: ComponentType<AnswerFormProps>;
}


/** LangChain Agent Inbox's `HumanInterrupt`: `{ action_request: { action, args }, config, description? }`. */
export interface HumanInterrupt {
  action_request: { action: string; args: Record<string, unknown> };
  config: { allow_accept: boolean; allow_edit: boolean; allow_respond: boolean; allow_ignore: boolean };
  description?: string;
}

export function asHumanInterrupt(value: unknown): HumanInterrupt | null {
  if (!isRecord(value)) return null;
  const request = value["action_request"];
  const config = value["config"];
  if (!isRecord(request) || typeof request["action"] !== "string" || !isRecord(config)) return null;
  const flag = (key: string) => config[key] === true;
  return {
    action_request: { action: request["action"], args: isRecord(request["args"]) ? request["args"] : {} },
    config: { allow_accept: flag("allow_accept"), allow_edit: flag("allow_edit"), allow_respond: flag("allow_respond"), allow_ignore: flag("allow_ignore") },
    ...(typeof value["description"] === "string" ? { description: value["description"] } : {}),
  };
}

/** The HumanInterrupt of a payload: the object itself or a one-element list (how Agent Inbox graphs raise it). */
export function humanInterruptOf(payload: unknown): { request: HumanInterrupt; list: boolean } | null {
  if (Array.isArray(payload)) {
    const request = payload.length === 1 ? asHumanInterrupt(payload[0]) : null;
    return request ? { request, list: true } : null;
  }
  const request = asHumanInterrupt(payload);
  return request ? { request, list: false } : null;
}

export { proposedCallOf, type ProposedCall } from "../../../index.ts";

/** Drafts live in sessionStorage: a refusal, a reconnect or a detour to another item loses nothing. */
export function loadDraft<T>(key: string, fallback: T): T {
  try {
    const text = sessionStorage.getItem(`switchboard.draft.${key}`);
    return text === null ? fallback : (JSON.parse(text) as T);
  } catch {
    return fallback;
  }
}

export function saveDraft(key: string, value: unknown): void {
  try {
    sessionStorage.setItem(`switchboard.draft.${key}`, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the draft still lives in the form's state.
  }
}

/** Form state that survives refusals and navigation (see loadDraft). */
export function useDraft<T>(key: string, initial: T): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(() => loadDraft(key, initial));
  const set = useCallback(
    (next: T) => {
      setValue(next);
      saveDraft(key, next);
    },
    [key],
  );
  return [value, set];
}
