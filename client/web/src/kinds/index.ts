/**
 * The answer kinds in the order they are tried: the most specific first, the
 * JSON editor (which fits everything) last. A new workflow adds its kind here.
 */
import { humanInterruptKind } from "./human-interrupt.tsx";
import { jsonAnswerKind } from "./json-answer.tsx";
import type { AnswerItem, AnswerKind } from "./kinds.ts";
import { schemaFormKind } from "./schema-form.tsx";
import { toolActionKind } from "./tool-action.tsx";

export const ANSWER_KINDS: readonly AnswerKind[] = [toolActionKind, humanInterruptKind, schemaFormKind, jsonAnswerKind];

export function kindFor(item: AnswerItem): AnswerKind {
  return ANSWER_KINDS.find((k) => k.matches(item)) ?? jsonAnswerKind;
}

export type { AnswerFormProps, AnswerItem, AnswerKind } from "./kinds.ts";
