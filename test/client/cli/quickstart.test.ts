/**
 * The quick start of client/cli/README.md, command for command: `npm start`,
 * then `npx switchboard run review --wait` in a second terminal and
 * `npx switchboard review` (the default review queue) in a third, answer,
 * and the run finishes. The hub URL comes from SWITCHBOARD_URL (the hub listens on a free port).
 * `npm start` is a real process; the `npx switchboard` lines run in process.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, cli, command } from "./harness.ts";

const RUN = "npx switchboard run review --wait";
const REVIEW = "npx switchboard review";
const ANSWER = 'answer 1 {"approve": true}';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The shell block after `<!-- quickstart -->` in client/cli/README.md. */
function quickstartBlock(): string {
  const readme = readFileSync(join(ROOT, "client/cli/README.md"), "utf8");
  const at = readme.indexOf("<!-- quickstart -->");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  if (at === -1 || block === undefined) throw new Error("client/cli/README.md has no quickstart block");
  return block;
}

/** The arguments of a `npx switchboard …` line, run in process (the bin itself is smoke-tested in serve.test.ts). */
const args = (line: string): string[] => {
  const [npx, bin, ...rest] = line.split(" ");
  expect([npx, bin]).toEqual(["npx", "switchboard"]);
  return rest;
};

describe("the CLI quick start", { timeout: 90_000 }, () => {
  it("is the README's block, and it works top to bottom", async () => {
    const block = quickstartBlock();
    for (const line of ["npm start", RUN, REVIEW, ANSWER]) expect(block).toContain(line);

    const data = mkdtempSync(join(tmpdir(), "switchboard-quickstart-"));
    dirs.push(data);
    const hub = command("npm", ["start"], { PORT: "0", SWITCHBOARD_DATA_DIR: data, SWITCHBOARD_JWT_SECRET: "" });
    const url = /listening on (http:\/\/\S+)/.exec(await hub.waitFor("listening on"))?.[1] ?? "";
    const env = { SWITCHBOARD_URL: url };

    const run = cli(args(RUN), env);
    await run.waitFor("draft │ Dear team");
    await run.waitFor(/^\? interrupt \S+ opened by review/);
    await run.waitFor(/^waiting for 1 answer — answer with `switchboard review --thread \S+`/, "stderr");

    const review = cli(args(REVIEW), env);
    // In the list, or announced as new if the hub routes it to the queue a moment later.
    await review.waitFor(/^ {2}\[1\] \S+ thread \S+ review: \{"kind":"review"/);
    review.type(ANSWER);
    await review.waitFor('answered [1] with {"approve":true}');
    review.type("quit");
    await review.expectExit(0);

    await run.waitFor(/answered by Developer \(dev\)$/);
    await run.waitFor(/^● run \S+ completed$/);
    await run.waitFor(/^final state: .*"decision":\{"approve":true\}/);
    await run.expectExit(0);

    hub.signal("SIGINT");
    await hub.exited;
  });
});
