/**
 * `switchboard serve`: the hub (what `npm start` runs), optionally with a
 * config module that adds your own graphs, auth and review routing. Runs until
 * Ctrl-C / SIGTERM, then closes the hub in order.
 */
import { startHub, type Logger } from "../../../hub/index.ts";
import { CliError, EXIT, UsageError, parse } from "../args.ts";
import { findConfig, loadConfig, toHubConfig, type SwitchboardConfig } from "../config.ts";
import { aborted, type CliContext, type Command } from "../context.ts";

const HELP = `Usage: switchboard serve [--port n] [--host h] [--config file] [--data-dir dir | --memory]

Runs the hub. Without --config, ./switchboard.config.ts (or .mts/.mjs/.js) is
used when present; without a config the demo assistants \`review\` and
\`parallel-review\` are served.

Options:
  --port <n>        port to listen on (default $PORT or 8787; 0 = any free port)
  --host <h>        interface (default $HOST or 127.0.0.1; 0.0.0.0 = every interface)
  --config <file>   a config module: export default defineConfig({ assistants, auth, review, … })
  --data-dir <dir>  SQLite directory (default $SWITCHBOARD_DATA_DIR or ./data)
  --memory          keep everything in memory (nothing survives a restart)
  -h, --help        this help

Environment: PORT, HOST, SWITCHBOARD_DATA_DIR, SWITCHBOARD_JWT_SECRET (32+
bytes; unset = open dev mode), SWITCHBOARD_JWKS_URL with SWITCHBOARD_JWT_ISSUER
and SWITCHBOARD_JWT_AUDIENCE (identity-provider tokens), SWITCHBOARD_ALLOWED_ORIGINS
(web pages of other sites that may call the hub), SWITCHBOARD_DEMO_TOKEN_DELAY_MS
(demo token pace, default 25). See client/cli/README.md and docs/operations.md.`;

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  config: { type: "string" },
  "data-dir": { type: "string" },
  memory: { type: "boolean" },
} as const;

export const serveCommand: Command = {
  name: "serve",
  help: HELP,
  async run(argv, ctx) {
    const { values } = parse(argv, OPTIONS, 0);
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError(`--port must be a port number, got ${values.port}`);
    if (values.memory && values["data-dir"] !== undefined) throw new UsageError("--memory and --data-dir exclude each other");
    const file = values.config ?? findConfig(ctx.cwd);
    const config: SwitchboardConfig = file === undefined ? {} : await loadConfig(file, ctx.cwd);
    if (file !== undefined) ctx.stderr.write(`config: ${file}\n`);
    const hubConfig = toHubConfig(config, { port, host: values.host, dataDir: values.memory ? null : values["data-dir"] }, ctx.env, ctx.cwd);
    // The hub logs on the command's streams (the process's, when run as the bin), unless the config brings a logger.
    hubConfig.logger = config.logger ?? streamLogger(ctx);
    let hub;
    try {
      hub = await startHub(hubConfig);
    } catch (error) {
      const code = error instanceof Error && "code" in error ? String(error.code) : "";
      if (code === "EADDRINUSE") throw new CliError(`port ${hubConfig.port ?? 8787} is in use: pass --port (0 = any free port) or stop the other process`);
      throw new CliError(`the hub did not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    const names = hub.assistants().map((a) => a.id);
    ctx.stdout.write(`switchboard hub ready at ${hub.url} (assistants: ${names.join(", ")}) — web app: ${hub.url}/\n`);
    if (hub.auth === "jwt") ctx.stdout.write("auth: JWT — clients need a token: switchboard token --sub you --roles observer,reviewer,operator\n");
    ctx.stdout.write(`next, in another terminal: switchboard run ${names[0] ?? "<assistant>"} --url ${hub.url}\n`);
    await aborted(ctx.signal);
    ctx.stderr.write("shutting down…\n");
    await hub.close();
    return EXIT.ok;
  },
};

/** What consoleLogger prints, on the command's own streams. */
function streamLogger(ctx: CliContext): Logger {
  return {
    info: (m) => ctx.stdout.write(`[switchboard] ${m}\n`),
    warn: (m) => ctx.stderr.write(`[switchboard] ${m}\n`),
    error: (m) => ctx.stderr.write(`[switchboard] ${m}\n`),
  };
}
