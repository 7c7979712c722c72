/**
 * client/cli/README.md stays in step with the code: its config example is
 * the example file byte for byte, and its exit-code table lists every EXIT.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../../client/cli/index.ts";
import { ROOT } from "./harness.ts";

const readme = readFileSync(join(ROOT, "client/cli/README.md"), "utf8");

describe("client/cli/README.md", () => {
  it("shows client/cli/examples/switchboard.config.ts verbatim", () => {
    const block = /<!-- config-example:start -->\n```ts\n([\s\S]*?)```\n<!-- config-example:end -->/.exec(readme)?.[1];
    expect(block).toBe(readFileSync(join(ROOT, "client/cli/examples/switchboard.config.ts"), "utf8"));
  });

  it("documents every exit code", () => {
    for (const code of Object.values(EXIT)) expect(readme).toMatch(new RegExp(`^\\| ${code} \\|`, "m"));
  });
});
