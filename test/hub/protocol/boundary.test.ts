/**
 * hub/protocol is shared by server and clients: it may import only itself,
 * zod, lib0 (Yjs' binary encoding, for the awareness codec: presence on the
 * wire is y-protocols awareness) and type-only spec/engine stream types.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIR = fileURLToPath(new URL("../../../hub/protocol/", import.meta.url));

describe("hub/protocol import boundary", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".ts"));
  it.each(files.map((f) => [f]))("%s imports only what it may", (file) => {
    const source = readFileSync(`${DIR}${file}`, "utf8");
    for (const match of source.matchAll(/^(import|export)(\s+type)?[^;]*?from\s+"([^"]+)";/gms)) {
      const typeOnly = match[2] !== undefined;
      const spec = match[3] ?? "";
      const allowed =
        spec.startsWith("./") ||
        spec === "zod" ||
        spec.startsWith("lib0/") ||
        (typeOnly && spec === "@langchain/protocol") ||
        (typeOnly && spec === "../../engine/stream/types.ts");
      expect(allowed, `${file}: ${match[0]}`).toBe(true);
    }
  });
});
