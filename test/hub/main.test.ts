/**
 * `npm start` (hub/main.ts) as a new user meets it, in a real process: a bad
 * configuration is one line with the fix (no stack trace), the default bind
 * is this machine only and the ready line prints the real address, and an
 * explicit HOST widens it with a loud warning.
 */
import { networkInterfaces } from "node:os";
import { afterAll, describe, expect, it, vi } from "vitest";
import { launchFromEnv } from "../../hub/launch.ts";
import { tempDataDir } from "../support/hub.ts";
import { HubProcess } from "../support/hub-process.ts";

const started: HubProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
});

async function run(env: Record<string, string>, waitFor: "ready" | "exit" = "ready"): Promise<HubProcess> {
  const hub = await HubProcess.start({ env, waitFor });
  started.push(hub);
  return hub;
}

/** This machine's first non-loopback IPv4 address: how the LAN reaches it. */
const lanAddress = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === "IPv4")?.address;

async function reachable(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    () => true,
    () => false,
  );
}

const REFUSALS: Array<[string, Record<string, string>, RegExp]> = [
  ["a bad PORT", { PORT: "80a" }, /PORT must be a port number 0–65535 .*got "80a"/],
  ["a weak secret", { SWITCHBOARD_JWT_SECRET: "hunter2" }, /SWITCHBOARD_JWT_SECRET is 7 bytes; HS256 needs at least 32 — generate one with `openssl rand -hex 32`/],
  ["a bad origin", { SWITCHBOARD_ALLOWED_ORIGINS: "app.example.com" }, /SWITCHBOARD_ALLOWED_ORIGINS: "app.example.com" is not an origin/],
  ["a JWKS without audience", { SWITCHBOARD_JWKS_URL: "https://idp.example.com/jwks.json" }, /needs SWITCHBOARD_JWT_ISSUER and SWITCHBOARD_JWT_AUDIENCE/],
];

describe("npm start", () => {
  // The refusal itself is a function of the environment (hub/launch.ts): checked in-process,
  // with everything the hub would print captured; one real process shows the exit code and
  // that nothing else (no stack) reaches the terminal.
  it.each(REFUSALS)("refuses %s in one line that says how to fix it, exit 2", async (_what, env, message) => {
    const printed: string[] = [];
    const capture = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
    const spies = (["log", "info", "warn", "error"] as const).map((m) => vi.spyOn(console, m).mockImplementation(capture));
    const lines: string[] = [];
    try {
      const launched = await launchFromEnv({ PORT: "0", SWITCHBOARD_DATA_DIR: tempDataDir(), ...env }, (line) => lines.push(line));
      if (!("exitCode" in launched)) await launched.close();
      expect(launched).toEqual({ exitCode: 2 });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(lines).toEqual([expect.stringMatching(message)]);
    expect(printed).toEqual([]);
  });

  it("a refused configuration exits the real process with 2 and prints only that line", async () => {
    const [, env, message] = REFUSALS[0]!;
    const hub = await run(env, "exit");
    expect(await hub.exited).toBe(2);
    expect(hub.lines.filter((l) => l.trim() !== "")).toEqual([expect.stringMatching(message)]);
    expect(hub.lines.join("\n")).not.toMatch(/^\s+at /m);
  });

  it("binds 127.0.0.1 by default and prints the port it really got", async () => {
    const hub = await run({});
    const ready = await hub.waitFor(/listening on http:/);
    expect(ready).toMatch(/listening on http:\/\/127\.0\.0\.1:(\d+) /);
    expect(ready).not.toContain(":0 ");
    expect(await (await fetch(`${hub.url}/health`)).json()).toMatchObject({ ok: true, auth: "open" });
    if (lanAddress) expect(await reachable(`http://${lanAddress}:${new URL(hub.url).port}/health`)).toBe(false);
  });

  it("an explicit HOST widens the bind, prints it and warns loudly", async () => {
    const hub = await run({ HOST: "0.0.0.0" });
    expect(await hub.waitFor(/listening on http:/)).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+ \(all interfaces\)/);
    expect(await hub.waitFor(/reachable from other machines/)).toMatch(/!!! listening on 0\.0\.0\.0: reachable from other machines IN OPEN DEV MODE/);
    if (lanAddress) expect(await reachable(`http://${lanAddress}:${new URL(hub.url).port}/health`)).toBe(true);
  });
});
