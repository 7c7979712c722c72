/**
 * `switchboard serve` and `switchboard token` as a user runs them: the hub
 * from the CLI (demo assistants; the documented config example with its
 * OpenAI-compatible model pointed at a local fake server), minted tokens
 * accepted by that hub, the package's bin, and usage errors.
 * In process, except the config example's hub and the bin (real processes).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAuthenticator } from "../../../hub/auth/index.ts";
import { ROOT, SECRET, cli, spawnCli } from "./harness.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** A Chat Completions server that streams `words` as SSE, as OpenAI does. */
async function fakeOpenAI(words: readonly string[]): Promise<{ url: string; requests: Array<{ auth: string | undefined; body: string }> }> {
  const requests: Array<{ auth: string | undefined; body: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      requests.push({ auth: req.headers.authorization, body });
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null) => ({ id: "chatcmpl-1", model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] });
      for (const w of words) res.write(`data: ${JSON.stringify(chunk({ content: w }, null))}\n\n`);
      res.write(`data: ${JSON.stringify(chunk({}, "stop"))}\n\n`);
      res.write(`data: ${JSON.stringify({ id: "chatcmpl-1", choices: [], usage: { prompt_tokens: 9, completion_tokens: words.length, total_tokens: 9 + words.length } })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

const readyUrl = (line: string): string => /ready at (http:\/\/\S+)/.exec(line)?.[1] ?? "";

describe("switchboard serve", { timeout: 90_000 }, () => {
  it("serves the demo assistants on --port 0; run works against it; SIGTERM shuts it down (exit 0)", async () => {
    const serve = cli(["serve", "--port", "0", "--memory"], { SWITCHBOARD_JWT_SECRET: "", SWITCHBOARD_DEMO_TOKEN_DELAY_MS: "1" });
    const url = readyUrl(await serve.waitFor(/switchboard hub ready at http:\/\/127\.0\.0\.1:\d+ \(assistants: review, parallel-review, expense-approval\)/));
    await serve.waitFor(`next, in another terminal: switchboard run review --url ${url}`);
    const run = cli(["run", "review", "--url", url]);
    await run.waitFor(/^\? interrupt \S+ opened by review/);
    await run.expectExit(3);
    serve.signal("SIGTERM");
    await serve.expectExit(0);
  });

  it("the documented config example: your OpenAI-compatible model as an assistant, JWT auth, demo kept", async () => {
    const openai = await fakeOpenAI(["Paris ", "is ", "the ", "capital."]);
    const env = { SWITCHBOARD_JWT_SECRET: SECRET, OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "fake-model" };
    // A real process: the bin loads the TypeScript config (which reads process.env) and shuts down on SIGINT.
    const serve = spawnCli(["serve", "--port", "0", "--memory", "--config", "client/cli/examples/switchboard.config.ts"], env);
    const url = readyUrl(await serve.waitFor(/ready at .*\(assistants: review, parallel-review, expense-approval, ask\)/));
    await serve.waitFor("auth: JWT — clients need a token: switchboard token --sub you");

    const token = cli(["token", "--sub", "alice", "--name", "Alice", "--roles", "admin"], env);
    await token.expectExit(0);
    const jwt = token.stdout.trim();

    const run = cli(["run", "ask", "--url", url, "--input", '{"question":"Capital of France?"}', "--wait"], { SWITCHBOARD_TOKEN: jwt });
    expect(await run.waitFor("answer │ ")).toContain("Paris is the capital.");
    const opened = await run.waitFor(/^\? interrupt (\S+) opened by approve: \{"kind":"approve"/);
    const thread = /on thread (\S+)$/.exec(run.lines.stdout.find((l) => l.startsWith("run ")) ?? "")?.[1] ?? "";
    const bob = cli(["token", "--sub", "bob", "--roles", "admin"], env);
    await bob.expectExit(0);
    const review = cli(["review", "--url", url, "--thread", thread, "--token", bob.stdout.trim()]);
    await review.waitFor("1 open item:");
    review.type(`answer ${/interrupt (\S+)/.exec(opened)?.[1] ?? "1"} true`);
    await review.waitFor("answered [1] with true");
    review.endInput();
    await run.waitFor(/^final state: .*"answer":"Paris is the capital\.","approved":true/);
    await run.expectExit(0);

    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]?.auth).toBe("Bearer sk-test");
    expect(JSON.parse(openai.requests[0]?.body ?? "{}")).toMatchObject({ model: "fake-model", stream: true });
    serve.signal("SIGINT");
    await serve.expectExit(0);
  });

  it("a broken config is a clear error (exit 1); bad flags exit 2", async () => {
    const missing = cli(["serve", "--config", "nowhere.config.ts"]);
    await missing.expectExit(1);
    expect(missing.stderr).toMatch(/config file .*nowhere\.config\.ts does not exist/);
    const port = cli(["serve", "--port", "http"]);
    await port.expectExit(2);
    expect(port.stderr).toContain("--port must be a port number");
  });
});

describe("switchboard token", { timeout: 90_000 }, () => {
  it("mints a JWT the hub accepts, with sub, name, roles and tenant", async () => {
    const token = cli(["token", "--sub", "alice", "--roles", "reviewer,legal", "--tenant", "acme", "--name", "Alice", "--expires", "1h"], { SWITCHBOARD_JWT_SECRET: SECRET });
    await token.expectExit(0);
    const jwt = token.stdout.trim();
    expect(jwt.split(".")).toHaveLength(3);
    const result = await createAuthenticator({ secret: SECRET }).authenticate(jwt);
    expect(result).toEqual({ ok: true, principal: { sub: "alice", name: "Alice", tenant: "acme", roles: ["reviewer", "legal"] } });
  });

  it("explains a missing secret (exit 1) and bad usage (exit 2)", async () => {
    const noSecret = cli(["token", "--sub", "alice"], { SWITCHBOARD_JWT_SECRET: "" });
    await noSecret.expectExit(1);
    expect(noSecret.stderr).toContain("SWITCHBOARD_JWT_SECRET is not set");
    const noSub = cli(["token", "--roles", "reviewer"], { SWITCHBOARD_JWT_SECRET: SECRET });
    await noSub.expectExit(2);
    expect(noSub.stderr).toContain("token needs --sub");
    const badSpan = cli(["token", "--sub", "a", "--expires", "soon"], { SWITCHBOARD_JWT_SECRET: SECRET });
    await badSpan.expectExit(2);
    const weak = cli(["token", "--sub", "a"], { SWITCHBOARD_JWT_SECRET: "short" });
    await weak.expectExit(1);
    expect(weak.stderr).toContain("needs at least 32");
  });
});

describe("the switchboard bin", { timeout: 90_000 }, () => {
  it("runs as `npx switchboard` from the package", async () => {
    // What npx runs: package.json's bin, executed itself (its shebang and mode bits, as npm links it).
    // Not through npx here: npm's own start-up was most of this test's time; test/package/smoke.ts runs
    // `npx switchboard serve` from the packed package.
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ switchboard: "client/cli/bin.mjs" });
    const child = spawn(join(ROOT, pkg.bin["switchboard"] ?? ""), ["--help"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code).toBe(0);
    expect(out).toContain("Usage: switchboard <command>");
  });

  it("unknown commands exit 2 with the command list", async () => {
    const bogus = cli(["bogus"]);
    await bogus.expectExit(2);
    expect(bogus.stderr).toContain('unknown command "bogus"');
    expect(bogus.stderr).toContain("serve    run the hub");
  });
});
