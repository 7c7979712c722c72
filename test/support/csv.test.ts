/** The tests' CSV reader reads RFC 4180 and refuses what is not. */
import { expect, it } from "vitest";
import { parseCsv } from "./csv.ts";

it("reads quoted fields, doubled quotes, line breaks inside quotes, CRLF and LF; refuses malformed CSV", () => {
  expect(parseCsv('a,b,c\r\n1,"x, ""y""",\r\n2,"line\nbreak",z\n')).toEqual([{ a: "1", b: 'x, "y"', c: "" }, { a: "2", b: "line\nbreak", c: "z" }]);
  expect(parseCsv("a\r\n")).toEqual([]);
  expect(() => parseCsv('a,b\r\n1,x"y\r\n')).toThrow(/quote inside an unquoted field/);
  expect(() => parseCsv('a,b\r\n1,"x"y\r\n')).toThrow(/after a closing quote/);
  expect(() => parseCsv('a,b\r\n1,"x\r\n')).toThrow(/unclosed quote/);
  expect(() => parseCsv("a,b\r\n1\r\n")).toThrow(/1 fields, the header 2/);
});
