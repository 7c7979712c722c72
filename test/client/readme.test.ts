/** client/README.md's error table lists every code the SDK can reject with, with its retryability. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it, vi } from "vitest";
import { CLIENT_ERROR_CODES, isRetryableCode, type HubClientErrorCode } from "../../client/index.ts";
import { ERROR_CODES, isErrorCode } from "../../hub/protocol/index.ts";

it("the README's error table matches ERROR_CODES and CLIENT_ERROR_CODES", () => {
  const text = readFileSync(fileURLToPath(new URL("../../client/README.md", import.meta.url)), "utf8");
  const table = /<!-- client-error-table:start -->([\s\S]*?)<!-- client-error-table:end -->/.exec(text)?.[1] ?? "";
  const rows = [...table.matchAll(/^\| `(\w+)` \| (hub|client) \| (yes|no) \|/gm)].map((m) => [m[1], m[2], m[3]]);
  const yesNo = (retryable: boolean) => (retryable ? "yes" : "no");
  const expected = [
    ...Object.entries(ERROR_CODES).map(([code, info]) => [code, "hub", yesNo(info.retryable)]),
    ...Object.entries(CLIENT_ERROR_CODES).map(([code, info]) => [code, "client", yesNo(info.retryable)]),
  ];
  expect(rows).toEqual(expected);
  const sample: HubClientErrorCode[] = ["thread_busy", "already_answered", "timeout", "client_closed"];
  expect(sample.map(isRetryableCode)).toEqual([true, false, true, false]);
  expect(Object.keys(CLIENT_ERROR_CODES).some((code) => isErrorCode(code))).toBe(false);
});

it("the README's quick start is client/examples/quickstart.ts, and it runs against the real hub", async () => {
  const readme = readFileSync(fileURLToPath(new URL("../../client/README.md", import.meta.url)), "utf8");
  const example = readFileSync(fileURLToPath(new URL("../../client/examples/quickstart.ts", import.meta.url)), "utf8");
  expect(readme).toContain(example.replace('from "../index.ts"', 'from "switchboard/client"'));

  const { startHub, silentLogger } = await import("../../hub/index.ts");
  const { quickstart } = await import("../../client/examples/quickstart.ts");
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, demoTokenDelayMs: 0 });
  const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    expect(await quickstart(hub.url)).toMatchObject({ topic: "the release", decision: { approve: true }, finalize_calls: 1 });
  } finally {
    write.mockRestore();
    await hub.close();
  }
});
