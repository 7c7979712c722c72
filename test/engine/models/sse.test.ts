/** SSEDecoder (eventsource-parser inside): the same events whatever way the text is split, per the WHATWG rules. */
import { describe, expect, it } from "vitest";
import { ModelError } from "../../../engine/models/index.ts";
import { SSEDecoder } from "../../../engine/models/sse.ts";
import type { SSEEvent } from "../../../engine/models/sse.ts";

function decodeWhole(text: string): SSEEvent[] {
  const d = new SSEDecoder();
  return [...d.push(text), ...d.end()];
}

function decodeSplit(text: string, at: number[]): SSEEvent[] {
  const d = new SSEDecoder();
  const out: SSEEvent[] = [];
  let from = 0;
  for (const cut of [...at, text.length]) {
    out.push(...d.push(text.slice(from, cut)));
    from = cut;
  }
  return [...out, ...d.end()];
}

const msg = (data: string, extra: Partial<SSEEvent> = {}): SSEEvent => ({ event: "message", data, ...extra });

describe("SSEDecoder", () => {
  it.each<[string, string, SSEEvent[]]>([
    ["one event", "data: hi\n\n", [msg("hi")]],
    ["no space after the colon", "data:hi\n\n", [msg("hi")]],
    ["only one leading space is removed", "data:  hi\n\n", [msg(" hi")]],
    ["empty data is an event", "data\n\n", [msg("")]],
    ["falsy-looking data", "data: 0\n\ndata: false\n\ndata: null\n\n", [msg("0"), msg("false"), msg("null")]],
    ["multi-line data joins with \\n", "data: {\"a\":\ndata: 1}\n\n", [msg('{"a":\n1}')]],
    ["CRLF line endings", "data: a\r\n\r\ndata: b\r\n\r\n", [msg("a"), msg("b")]],
    ["CR line endings", "data: a\r\rdata: b\r\r", [msg("a"), msg("b")]],
    ["comments are skipped", ": keep-alive\n\n:\ndata: x\n: more\n\n", [msg("x")]],
    ["blank lines without data dispatch nothing", "\n\n\n", []],
    ["event and id fields", "event: error\nid: 7\ndata: x\n\ndata: y\n\n", [msg("x", { event: "error", id: "7" }), msg("y", { id: "7" })]],
    ["retry and unknown fields are ignored", "retry: 10\nfoo: bar\ndata: x\n\n", [msg("x")]],
    ["a BOM at the start is dropped", "\uFEFFdata: x\n\n", [msg("x")]],
    ["an event without its blank line still counts at the end", "data: [DONE]\n", [msg("[DONE]")]],
    ["a trailing CR ends the stream's last line", "data: x\r", [msg("x")]],
    ["an unterminated last line is dropped", "data: a\n\ndata: cut", [msg("a")]],
  ])("%s", (_label, text, expected) => {
    expect(decodeWhole(text)).toEqual(expected);
  });

  it("gives the same events for every split point, including inside CRLF", () => {
    const text = ': hello\r\ndata: {"choices":[{"delta":{"content":"你好"}}]}\r\n\r\nevent: x\r\ndata: a\r\ndata: b\r\n\r\ndata: [DONE]\r\n\r\n';
    const whole = decodeWhole(text);
    expect(whole).toHaveLength(3);
    for (let i = 0; i <= text.length; i++) {
      for (const j of [i + 1, i + 7]) {
        if (j <= text.length) expect(decodeSplit(text, [i, j])).toEqual(whole);
      }
    }
  });

  it("refuses a line that never ends", () => {
    const d = new SSEDecoder({ maxBuffered: 16 });
    expect(d.push("data: 0123456789")).toEqual([]);
    expect(() => d.push("abcdef")).toThrow(ModelError);
  });
});
