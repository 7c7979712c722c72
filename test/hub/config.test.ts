/**
 * The one config schema: typos and wrong types are refused at start with a
 * ConfigError that lists the valid keys (with a did-you-mean), and an
 * assistant compiled without the hub's checkpointer is refused at start, not
 * on its first run. `switchboard serve --config` goes through the same check.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { END, MemorySaver, START, StateGraph, lastValue } from "../../engine/index.ts";
import { ConfigError, HUB_ENV_VARS, configFromEnv, createHub, silentLogger, type HubConfig } from "../../hub/index.ts";
import { cli } from "../client/cli/harness.ts";

const base: HubConfig = { port: 0, dataDir: null, logger: silentLogger };

async function refusal(config: unknown): Promise<ConfigError> {
  const error = await createHub(config as HubConfig).then(
    async (hub) => {
      await hub.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

function tinyGraph(checkpointer?: MemorySaver) {
  return new StateGraph({ x: lastValue<number>() })
    .addNode("a", () => ({ x: 1 }))
    .addEdge(START, "a")
    .addEdge("a", END)
    .compile({ ...(checkpointer ? { checkpointer } : {}), name: "tiny" });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("config validation", () => {
  it("an unknown key is an error that lists the valid keys and suggests the near miss", async () => {
    const e = await refusal({ ...base, asistants: () => [] });
    expect(e.code).toBe("CONFIG_ERR_UNKNOWN_KEY");
    expect(e.message).toMatch(/unknown key "asistants" \(did you mean "assistants"\?\); valid keys: port, host, dataDir, jwtSecret, .*assistants/);
  });

  it("nested keys too: limits and review", async () => {
    expect((await refusal({ ...base, limits: { maxFrameByte: 10 } })).message).toMatch(/unknown key "limits\.maxFrameByte" \(did you mean "maxFrameBytes"\?\); valid keys of limits: maxFrameBytes,/);
    expect((await refusal({ ...base, review: { defaultQeue: "x" } })).message).toMatch(/"review\.defaultQeue" \(did you mean "defaultQueue"\?\)/);
  });

  it("wrong types and values name the field", async () => {
    expect((await refusal({ ...base, port: "8787" })).message).toMatch(/hub config: port /);
    expect((await refusal({ ...base, limits: { sendHardBytes: -1 } })).message).toMatch(/limits\.sendHardBytes/);
    expect((await refusal({ ...base, allowedOrigins: ["app.example.com"] })).message).toMatch(/allowedOrigins\.0 must be an origin/);
    expect((await refusal({ ...base, jwtSecret: "short" })).message).toMatch(/jwtSecret is 5 bytes; HS256 needs at least 32 — generate one with `openssl rand -hex 32`/);
    expect((await refusal({ ...base, jwks: { url: "https://idp.example.com/jwks.json", audience: "hub" } })).message).toMatch(/jwks\.issuer/);
    expect((await refusal({ ...base, review: { onExpire: { action: "ignore" } } })).message).toMatch(/review\.onExpire/);
    expect((await refusal({ ...base, review: { onExpire: { action: "keep", response: 1 } } })).message).toMatch(/review\.onExpire/);
  });

  it("refuses at start an assistant compiled without the hub's checkpointer, or with another one", async () => {
    const without = await refusal({ ...base, assistants: () => [{ id: "tiny", description: "", graph: tinyGraph() }] });
    expect(without.code).toBe("CONFIG_ERR_ASSISTANT");
    expect(without.message).toMatch(/assistant "tiny" was compiled without a checkpointer: compile it with the one the assistants factory receives/);
    const other = await refusal({ ...base, assistants: () => [{ id: "tiny", description: "", graph: tinyGraph(new MemorySaver()) }] });
    expect(other.message).toMatch(/with another checkpointer/);
    const hub = await createHub({ ...base, assistants: (checkpointer) => [{ id: "tiny", description: "", graph: tinyGraph(checkpointer as MemorySaver) }] });
    await hub.close();
  });

  it("accepts every documented HubConfig field (webRoot too)", async () => {
    const hub = await createHub({ ...base, webRoot: null });
    const { url } = await hub.start();
    expect((await fetch(`${url}/index.html`)).status).toBe(404); // null: no app served
    await hub.close();
  });

  it("configFromEnv reads only the documented variables and defaults to this machine only", () => {
    expect(configFromEnv({})).toMatchObject({ port: 8787, host: "127.0.0.1", dataDir: "./data", jwtSecret: undefined });
    expect([...HUB_ENV_VARS]).toEqual(expect.arrayContaining(["PORT", "HOST", "SWITCHBOARD_ALLOWED_ORIGINS", "SWITCHBOARD_JWKS_URL"]));
    expect(configFromEnv({ SWITCHBOARD_ALLOWED_ORIGINS: "https://a.example, http://localhost:5173" }).allowedOrigins).toEqual(["https://a.example", "http://localhost:5173"]);
    expect(configFromEnv({ SWITCHBOARD_JWKS_URL: "https://idp.example/jwks", SWITCHBOARD_JWT_ISSUER: "https://idp.example/", SWITCHBOARD_JWT_AUDIENCE: "hub" }).jwks).toEqual({
      url: "https://idp.example/jwks",
      issuer: "https://idp.example/",
      audience: "hub",
    });
  });

  it("switchboard serve --config refuses a typo in the config module, listing the valid keys (exit 1)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchboard-config-"));
    dirs.push(dir);
    const file = join(dir, "switchboard.config.mjs");
    writeFileSync(file, "export default { asistants: () => [], review: { defaultQueue: 'x' } };\n");
    const serve = cli(["serve", "--port", "0", "--memory", "--config", file]);
    await serve.expectExit(1);
    expect(serve.stderr).toMatch(/unknown key "asistants" \(did you mean "assistants"\?\); valid keys: assistants, demo, auth, allowedOrigins, review/);
  });

  it("serve --help names only keys the config schema has", async () => {
    const help = cli(["serve", "--help"]);
    await help.expectExit(0);
    const named = /defineConfig\(\{ ([^}]*) \}\)/.exec(help.stdout)?.[1]?.split(/,\s*/).filter((k) => k !== "…") ?? [];
    const { CONFIG_KEYS } = await import("../../client/cli/config.ts");
    expect(named.length).toBeGreaterThan(0);
    for (const key of named) expect(CONFIG_KEYS).toContain(key);
  });
});
