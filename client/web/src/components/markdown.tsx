/**
 * Markdown for text fields (a `draft`), by micromark: CommonMark, and safe by
 * default — raw HTML in the text is escaped and `javascript:` links dropped,
 * so the string can go into the DOM as HTML.
 */
import { micromark } from "micromark";
import { useMemo, type ReactNode } from "react";

export function Markdown({ text, label }: { text: string; label?: string }): ReactNode {
  const html = useMemo(() => micromark(text), [text]);
  return <div className="markdown" aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Whether a string reads better as Markdown than as a JSON string (prose, lists, headings). */
export function looksLikeProse(text: string): boolean {
  return text.length > 60 || /(^|\n)(#{1,6} |[-*] |\d+\. |> )|\*\*|`/.test(text) || text.includes("\n");
}
