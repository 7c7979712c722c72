/**
 * Size and depth of inbound JSON, measured the way the limits are stated:
 * bytes of UTF-8 (not UTF-16 code units), and nesting of arrays and objects,
 * counted on the text before it is parsed — so a frame nested 5,000 levels
 * deep is refused before any code walks it (recursive code would overflow the
 * stack). Pure; shared by every transport.
 */

/** Deepest nesting of arrays and objects a command or request body may have, unless configured. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const encoder = new TextEncoder();

/** Bytes of `text` as UTF-8. */
export function utf8Bytes(text: string): number {
  // Most ids and keys are ASCII: one byte per code unit, no encoding needed.
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? text.length : encoder.encode(text).byteLength;
}

/** Whether the JSON `text` nests arrays and objects more than `max` levels deep: one linear scan, brackets inside strings skipped. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  // n characters cannot open more than n levels.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** The error message for a body or frame past the depth limit. */
export function tooDeepMessage(max: number): string {
  return `the JSON nests arrays and objects more than ${max} levels deep (the hub's limit); send a flatter value`;
}
