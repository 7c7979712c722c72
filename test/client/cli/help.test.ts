/**
 * `switchboard <command> --help` / `-h`, handled once by the dispatcher: each
 * command prints its own help on stdout and exits 0, whatever else is on the
 * line (in process: no hub, no network).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { COMMANDS, main } from "../../../client/cli/main.ts";
import { EXIT } from "../../../client/cli/args.ts";

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const ctx = { stdin: new PassThrough(), stdout, stderr, env: {}, cwd: process.cwd(), signal: new AbortController().signal, interactive: false };
  return { ctx, out: () => out, err: () => err };
}

describe("--help", () => {
  it.each(COMMANDS.map((c) => c.name))("%s prints its own help and exits 0", async (name) => {
    const command = await COMMANDS.find((c) => c.name === name)!.load();
    for (const flag of ["--help", "-h"]) {
      // Arguments that would fail (a missing --sub, an unknown option) do not matter beside --help.
      const { ctx, out, err } = capture();
      expect(await main([name, "--bogus", flag], ctx)).toBe(EXIT.ok);
      expect(out()).toBe(`${command.help}\n`);
      expect(err()).toBe("");
    }
  });

  it("an unknown option without --help is still a usage error", async () => {
    const { ctx, err } = capture();
    expect(await main(["token", "--bogus"], ctx)).toBe(EXIT.usage);
    expect(err()).toContain("--bogus");
  });
});
