/**
 * A strict RFC 4180 reader for tests (no dependency): quoted fields with
 * doubled quotes and line breaks, CRLF or LF row ends; a malformed input (a
 * quote inside an unquoted field, text after a closing quote, an unclosed
 * quote) throws. The first row names the columns; every row must have them all.
 */
export function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  let started = false;
  const endField = () => {
    row.push(field);
    field = "";
    quoted = false;
    started = false;
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i += 1;
        const next = text[i];
        if (next !== undefined && next !== "," && next !== "\r" && next !== "\n") throw new Error(`CSV: text after a closing quote at ${i}`);
        continue;
      }
      field += ch;
      i += 1;
      continue;
    }
    if (ch === '"') {
      if (started || field !== "") throw new Error(`CSV: a quote inside an unquoted field at ${i}`);
      quoted = true;
      started = true;
      i += 1;
    } else if (ch === ",") {
      endField();
      i += 1;
    } else if (ch === "\r" || ch === "\n") {
      endField();
      rows.push(row);
      row = [];
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
    } else {
      field += ch;
      started = true;
      i += 1;
    }
  }
  if (quoted) throw new Error("CSV: an unclosed quote");
  if (started || row.length > 0) {
    endField();
    rows.push(row);
  }
  const [header, ...body] = rows;
  if (header === undefined) return [];
  return body.map((cells, n) => {
    if (cells.length !== header.length) throw new Error(`CSV: row ${n + 1} has ${cells.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((name, k) => [name, cells[k] ?? ""]));
  });
}
