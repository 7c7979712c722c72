/**
 * Every example in docs/PROTOCOL.md is a fixture: blocks tagged
 * `json protocol-command|event|response` must parse with the real schemas,
 * `json protocol-sequence <name>` blocks are arrays of such events,
 * `json rest-example <name>` blocks must be JSON (test/hub/docs-rest.test.ts
 * compares them with a live hub), no JSON block goes untagged, and the error
 * table must match ERROR_CODES.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, assertNever, decodeCommand, decodeEvent, decodeResponse } from "../../../hub/protocol/index.ts";

const DOC = fileURLToPath(new URL("../../../docs/PROTOCOL.md", import.meta.url));
const text = readFileSync(DOC, "utf8");

const KINDS = ["command", "event", "response"] as const;
type Kind = (typeof KINDS)[number];
interface Example {
  kind: Kind;
  line: number;
  body: string;
}

function extract(markdown: string): Example[] {
  const examples: Example[] = [];
  const fence = /^```json protocol-(command|event|response)[^\S\n]*\n([\s\S]*?)^```[^\S\n]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    const kind = KINDS.find((k) => k === match[1]);
    if (kind === undefined) continue;
    const line = markdown.slice(0, match.index).split("\n").length;
    examples.push({ kind, line, body: match[2] ?? "" });
  }
  return examples;
}

const examples = extract(text);

function decode(example: Example): { ok: boolean; message?: string } {
  switch (example.kind) {
    case "command": {
      const r = decodeCommand(example.body);
      return r.ok ? { ok: true } : { ok: false, message: r.error.message };
    }
    case "event": {
      const r = decodeEvent(example.body);
      return r.ok ? { ok: true } : { ok: false, message: r.error.message };
    }
    case "response": {
      const r = decodeResponse(example.body);
      return r.ok ? { ok: true } : { ok: false, message: r.error.message };
    }
    default:
      return assertNever(example.kind, "example kind");
  }
}

describe("docs/PROTOCOL.md examples", () => {
  it("has examples of every kind", () => {
    const kinds = new Set(examples.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(["command", "event", "response"]);
    expect(examples.length).toBeGreaterThan(30);
  });

  it("tags every json block (no untested example)", () => {
    const untagged = [...text.matchAll(/^```json[^\S\n]*$/gm)].length;
    expect(untagged).toBe(0);
    // Every JSON fence carries one of the tags a test reads; a new tag must be added here.
    const infos = [...text.matchAll(/^```(json\b.*)$/gm)].map((m) => (m[1] ?? "").trim());
    const known = /^json (protocol-(command|event|response)|protocol-sequence [\w-]+|rest-example [\w-]+|webhook-example [\w-]+)$/;
    expect(infos.filter((info) => !known.test(info))).toEqual([]);
  });

  it("every rest-example block is JSON and names a distinct example", () => {
    const blocks = [...text.matchAll(/^```json rest-example ([\w-]+)\n([\s\S]*?)^```$/gm)];
    expect(blocks.length).toBeGreaterThan(0);
    const names = blocks.map((m) => m[1]);
    expect(new Set(names).size).toBe(names.length);
    for (const [, name, body] of blocks) expect(() => JSON.parse(body ?? ""), `rest-example ${name}`).not.toThrow();
  });

  it.each(examples.map((e) => [`${e.kind} at line ${e.line}`, e] as const))("%s parses with the real schema", (_name, example) => {
    expect(decode(example)).toEqual({ ok: true });
  });

  it("every event of a documented run sequence parses with the real schema", () => {
    const blocks = [...text.matchAll(/^```json protocol-sequence [\w-]+\n([\s\S]*?)^```$/gm)];
    expect(blocks.length).toBeGreaterThan(0);
    for (const [, body] of blocks) {
      const events = JSON.parse(body ?? "[]") as unknown[];
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expect(decodeEvent(JSON.stringify(event))).toMatchObject({ ok: true });
    }
  });

  it("a broken example is caught", () => {
    const broken = extract('```json protocol-event\n{ "type": "event", "method": "lifecycle", "params": { "namespace": [], "timestamp": 1, "data": { "event": "done" } } }\n```\n');
    expect(broken).toHaveLength(1);
    const [first] = broken;
    if (first) expect(decode(first).ok).toBe(false);
  });

  it("the error table matches ERROR_CODES", () => {
    const table = text.split("<!-- error-table:start -->")[1]?.split("<!-- error-table:end -->")[0] ?? "";
    const rows = [...table.matchAll(/^\| `(\w+)` \| (\d+) \| (yes|no) \| (spec|extension) \| (.+) \|$/gm)].map((m) => ({
      code: m[1],
      status: Number(m[2]),
      retryable: m[3] === "yes",
      spec: m[4] === "spec",
      description: m[5],
    }));
    const expected = Object.entries(ERROR_CODES).map(([code, info]) => ({ code, ...info }));
    expect(rows).toEqual(expected);
  });
});
