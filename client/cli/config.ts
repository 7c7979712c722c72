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
import { z } from "zod";
import {
  ConfigError,
  checkConfig as checkWithSchema,
  configFromEnv,
  functionSchema,
  jwksSchema,
  limitsSchema,
  loggerSchema,
  originSchema,
  reviewConfigSchema,
  demoAssistants,
  type Assistant,
  type EventTransformer,
  type HubConfig,
  type HubLimits,
  type JwksConfig,
  type Logger,
  type ReviewConfig,
} from "../../hub/index.ts";
import { CliError } from "./args.ts";
import { enableTypeScript, isTypeScript } from "./typescript.ts";

export interface SwitchboardConfig {
  /**
   * Your assistants, built once the hub has opened its checkpointer (pass it
   * to `compile({ checkpointer })` so runs persist and can be resumed).
   */
  assistants?: (checkpointer: Checkpointer) => readonly Assistant[];
  /** Also serve the demo assistants `review` and `parallel-review` (default: only when `assistants` is not set). */
  demo?: boolean;
  auth?: {
    /** HS256 secret (32+ bytes); default $SWITCHBOARD_JWT_SECRET; none (and no jwks) = open dev mode. */
    jwtSecret?: string | undefined;
    /** Identity-provider tokens (RS256/ES256): { url, issuer, audience }; default from $SWITCHBOARD_JWKS_URL. */
    jwks?: JwksConfig | undefined;
  };
  /** Web origins allowed to call the hub besides its own (default $SWITCHBOARD_ALLOWED_ORIGINS). */
  allowedOrigins?: readonly string[];
  /** Review routing: default queue, a routing hook for graphs you don't control, default deadline, claim TTL. */
  review?: ReviewConfig;
  /** Default $PORT or 8787. */
  port?: number;
  /** Default $HOST or 127.0.0.1 (this machine only). */
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

/** Imports a config module (TypeScript through tsx) and checks its shape. */
export async function loadConfig(file: string, cwd: string): Promise<SwitchboardConfig> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new CliError(`config file ${path} does not exist`);
  let mod: unknown;
  try {
    if (isTypeScript(path)) await enableTypeScript();
    mod = await import(pathToFileURL(path).href);
  } catch (error) {
    throw new CliError(`cannot load config ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const config = defaultExport(mod);
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new CliError(`config ${path} must \`export default defineConfig({ ... })\` (an object)`);
  }
  return checkConfig(config, path);
}

/** The config module's one schema: strict, so a typo is an error that lists the valid keys. */
const configSchema = z.strictObject({
  assistants: functionSchema("(checkpointer) => Assistant[]").optional(),
  demo: z.boolean().optional(),
  auth: z.strictObject({ jwtSecret: z.string().optional(), jwks: jwksSchema.optional() }).optional(),
  allowedOrigins: z.array(originSchema).optional(),
  review: reviewConfigSchema.optional(),
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  dataDir: z.string().min(1).nullable().optional(),
  limits: limitsSchema.optional(),
  transformEvent: functionSchema("(event, threadId) => event | null").optional(),
  logger: loggerSchema.optional(),
});

/** The keys a config module may have, for `serve --help` and the docs. */
export const CONFIG_KEYS = Object.keys(configSchema.shape);

/** The module's default export; a CommonJS module compiled from `export default` keeps it under `.default`. */
function defaultExport(mod: unknown): unknown {
  const value: unknown = typeof mod === "object" && mod !== null && "default" in mod ? mod.default : undefined;
  const compiled = typeof value === "object" && value !== null && "__esModule" in value && value.__esModule === true && "default" in value;
  return compiled ? value.default : value;
}

function checkConfig(config: object, path: string): SwitchboardConfig {
  try {
    checkWithSchema(configSchema, config, `config ${path}`);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
  // Checked above; the functions' own types are the module's to get right.
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
  const jwks = config.auth?.jwks ?? base.jwks;
  const demoFactory = demoAssistants(base.demoTokenDelayMs === undefined ? {} : { tokenDelayMs: base.demoTokenDelayMs });
  const dataDir = flags.dataDir !== undefined ? flags.dataDir : config.dataDir !== undefined ? config.dataDir : base.dataDir;
  return {
    ...base,
    ...(config.port === undefined ? {} : { port: config.port }),
    ...(config.host === undefined ? {} : { host: config.host }),
    ...(flags.port === undefined ? {} : { port: flags.port }),
    ...(flags.host === undefined ? {} : { host: flags.host }),
    ...(dataDir === undefined ? {} : { dataDir: dataDir === null ? null : resolve(cwd, dataDir) }),
    jwtSecret: jwtSecret === "" ? undefined : jwtSecret,
    ...(jwks ? { jwks } : {}),
    ...(config.allowedOrigins ? { allowedOrigins: config.allowedOrigins } : {}),
    assistants: (checkpointer) => [...(demo ? demoFactory(checkpointer) : []), ...(own ? own(checkpointer) : [])],
    ...(config.limits ? { limits: config.limits } : {}),
    ...(config.transformEvent ? { transformEvent: config.transformEvent } : {}),
    ...(config.logger ? { logger: config.logger } : {}),
    ...(config.review ? { review: config.review } : {}),
  };
}
