/**
 * The `switchboard serve` config module: your graphs as assistants, auth and
 * review routing. A module whose default export is `defineConfig({...})` (or
 * a plain object of this shape); `toHubConfig` merges it over the
 * environment's defaults (configFromEnv) into a HubConfig.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Checkpointer } from "../../engine/index.ts";
import {
  configFromEnv,
  demoAssistants,
  type Assistant,
  type EventTransformer,
  type HubConfig,
  type HubLimits,
  type Logger,
  type ReviewConfig,
} from "../../hub/index.ts";
import { CliError } from "./args.ts";

export interface SwitchboardConfig {
  /**
   * Your assistants, built once the hub has opened its checkpointer (pass it
   * to `compile({ checkpointer })` so runs persist and can be resumed).
   */
  assistants?: (checkpointer: Checkpointer) => readonly Assistant[];
  /** Also serve the demo assistants `review` and `parallel-review` (default: only when `assistants` is not set). */
  demo?: boolean;
  auth?: {
    /** HS256 secret (32+ bytes); default $SWITCHBOARD_JWT_SECRET; none = open dev mode. */
    jwtSecret?: string | undefined;
  };
  /** Review routing: default queue, a routing hook for graphs you don't control, default deadline, claim TTL. */
  review?: ReviewConfig;
  /** Default $PORT or 8787. */
  port?: number;
  /** Default $HOST or 0.0.0.0. */
  host?: string;
  /** SQLite directory, default $SWITCHBOARD_DATA_DIR or ./data; null = in memory. */
  dataDir?: string | null;
  limits?: Partial<HubLimits>;
  transformEvent?: EventTransformer;
  logger?: Logger;
}

/** Identity, for type checking and editor completion in a config module. */
export function defineConfig(config: SwitchboardConfig): SwitchboardConfig {
  return config;
}

/** Looked for in the working directory when `serve` gets no --config. */
export const DEFAULT_CONFIG_FILES = ["switchboard.config.ts", "switchboard.config.mts", "switchboard.config.mjs", "switchboard.config.js"] as const;

export function findConfig(cwd: string): string | undefined {
  return DEFAULT_CONFIG_FILES.map((f) => resolve(cwd, f)).find((path) => existsSync(path));
}

/** Imports a config module (TypeScript works: the CLI runs under tsx) and checks its shape. */
export async function loadConfig(file: string, cwd: string): Promise<SwitchboardConfig> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new CliError(`config file ${path} does not exist`);
  let mod: unknown;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (error) {
    throw new CliError(`cannot load config ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const config: unknown = typeof mod === "object" && mod !== null && "default" in mod ? mod.default : undefined;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new CliError(`config ${path} must \`export default defineConfig({ ... })\` (an object)`);
  }
  return checkConfig(config, path);
}

function checkConfig(config: object, path: string): SwitchboardConfig {
  const bad = (field: string, want: string): never => {
    throw new CliError(`config ${path}: ${field} must be ${want}`);
  };
  const c: Record<string, unknown> = { ...config };
  if (c["assistants"] !== undefined && typeof c["assistants"] !== "function") bad("assistants", "a function (checkpointer) => Assistant[]");
  if (c["demo"] !== undefined && typeof c["demo"] !== "boolean") bad("demo", "a boolean");
  if (c["port"] !== undefined && !(Number.isInteger(c["port"]) && Number(c["port"]) >= 0 && Number(c["port"]) <= 65535)) bad("port", "a port number");
  if (c["host"] !== undefined && typeof c["host"] !== "string") bad("host", "a string");
  if (c["dataDir"] !== undefined && c["dataDir"] !== null && typeof c["dataDir"] !== "string") bad("dataDir", "a directory or null");
  const auth = c["auth"];
  if (auth !== undefined && (typeof auth !== "object" || auth === null)) bad("auth", "an object { jwtSecret }");
  const review = c["review"];
  if (review !== undefined && (typeof review !== "object" || review === null)) bad("review", "an object { defaultQueue, routingHook, expiresIn, … }");
  // The checks above are the fields the CLI reads itself; the rest goes to the hub as typed.
  return config as SwitchboardConfig;
}

export interface ServeFlags {
  port?: number | undefined;
  host?: string | undefined;
  dataDir?: string | null | undefined;
}

/** Environment defaults ← config module ← flags; a relative data dir is taken from `cwd`. */
export function toHubConfig(config: SwitchboardConfig, flags: ServeFlags, env: NodeJS.ProcessEnv, cwd: string): HubConfig {
  const base = configFromEnv(env);
  const own = config.assistants;
  const demo = config.demo ?? own === undefined;
  const jwtSecret = config.auth && "jwtSecret" in config.auth ? config.auth.jwtSecret : base.jwtSecret;
  const delay = Number(env["SWITCHBOARD_DEMO_TOKEN_DELAY_MS"] ?? Number.NaN);
  const demoFactory = demoAssistants(Number.isFinite(delay) && delay >= 0 ? { tokenDelayMs: delay } : {});
  const dataDir = flags.dataDir !== undefined ? flags.dataDir : config.dataDir !== undefined ? config.dataDir : base.dataDir;
  return {
    ...base,
    ...(config.port === undefined ? {} : { port: config.port }),
    ...(config.host === undefined ? {} : { host: config.host }),
    ...(flags.port === undefined ? {} : { port: flags.port }),
    ...(flags.host === undefined ? {} : { host: flags.host }),
    ...(dataDir === undefined ? {} : { dataDir: dataDir === null ? null : resolve(cwd, dataDir) }),
    jwtSecret: jwtSecret === "" ? undefined : jwtSecret,
    assistants: (checkpointer) => [...(demo ? demoFactory(checkpointer) : []), ...(own ? own(checkpointer) : [])],
    ...(config.limits ? { limits: config.limits } : {}),
    ...(config.transformEvent ? { transformEvent: config.transformEvent } : {}),
    ...(config.logger ? { logger: config.logger } : {}),
    ...(config.review ? { review: config.review } : {}),
  };
}
