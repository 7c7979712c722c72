/**
 * Text from other people (presence labels, display names, payloads) made safe
 * to print: control characters — terminal escapes (ESC), carriage returns,
 * backspaces, C1 controls, DEL — and the bidi embeddings, overrides and
 * isolates are shown as visible escapes (`\x1b`, `\r`, `\u202e`) instead of
 * acting on the terminal or reordering a page. Newlines and tabs are kept
 * when `keepNewlines` (multi-line output), else escaped too.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { "\r": "\\r", "\n": "\\n", "\t": "\\t", "\b": "\\b" };

export function printable(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(UNSAFE, (ch) => {
    if (options.keepNewlines && (ch === "\n" || ch === "\t")) return ch;
    const named = NAMED[ch];
    if (named !== undefined) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
