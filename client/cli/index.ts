/** client/cli: what a `switchboard serve` config module imports, and the CLI entry for embedding. */
export { defineConfig, DEFAULT_CONFIG_FILES } from "./config.ts";
export type { SwitchboardConfig } from "./config.ts";
export { EXIT } from "./args.ts";
export type { ExitCode } from "./args.ts";
export { main, USAGE } from "./main.ts";
export type { CliContext } from "./context.ts";
