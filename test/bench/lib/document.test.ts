/**
 * The web app's section of docs/benchmarks.md: `npm run bench:web` replaces
 * only its own block, and `npm run bench` (which rewrites the document)
 * carries it over.
 */
import { describe, expect, it } from "vitest";
import { WEB_END, WEB_START, replaceWebSection, webSectionOf } from "./document.ts";

const doc = "# Benchmarks\n\n## Engine\n\n| a | b |\n";

describe("the web section", () => {
  it("is appended to a document without one, and replaced in place in one that has it; the rest stays byte for byte", () => {
    const first = replaceWebSection(doc, "## Web app\n\nold numbers\n");
    expect(first).toBe(`${doc.trimEnd()}\n\n${WEB_START}\n## Web app\n\nold numbers\n${WEB_END}\n`);
    const withTail = `${first}\n## Later section\n\ntext\n`;
    const second = replaceWebSection(withTail, "## Web app\n\nnew numbers $& $1");
    expect(second).toBe(withTail.replace("old numbers", () => "new numbers $& $1"));
    expect(webSectionOf(second)).toContain("new numbers");
    expect(webSectionOf(doc)).toBe("");
  });

  it("starts a document when there is none", () => {
    expect(replaceWebSection("", "## Web app")).toBe(`${WEB_START}\n## Web app\n${WEB_END}\n`);
  });
});
