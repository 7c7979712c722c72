/**
 * The `switchboard` CLI entry: picks the command, runs it with the process's
 * streams and a Ctrl-C signal, and maps failures to exit codes (2 = usage).
 */
import { CliError, EXIT, UsageError, type ExitCode } from "./args.ts";
import { printable } from "../printable.ts";
import type { CliContext, Command } from "./context.ts";

interface CommandEntry {
  name: string;
  summary: string;
  /** Loaded on use: `token` need not load the hub, nor `run` the server. */
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "serve", summary: "run the hub", load: async () => (await import("./commands/serve.ts")).serveCommand },
  { name: "run", summary: "start a run and stream it", load: async () => (await import("./commands/run.ts")).runCommand },
  { name: "watch", summary: "live view of a thread", load: async () => (await import("./commands/watch.ts")).watchCommand },
  { name: "review", summary: "answer open interrupts interactively", load: async () => (await import("./commands/review.ts")).reviewCommand },
  { name: "token", summary: "mint a dev JWT with SWITCHBOARD_JWT_SECRET", load: async () => (await import("./commands/token.ts")).tokenCommand },
];

export const USAGE = `Usage: switchboard <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(8)} ${c.summary}`).join("\n")}

Run \`switchboard <command> --help\` for a command's options.
Exit codes: 0 ok, 1 error or failed run, 2 usage, 3 run ended interrupted, 130 Ctrl-C.`;

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: readonly string[], ctx: CliContext): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? ctx.stderr : ctx.stdout).write(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    ctx.stderr.write(`switchboard: unknown command ${JSON.stringify(name)}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const command = await entry.load();
  // Every command's --help, here once: it wins over the other arguments.
  if (rest.includes("--help") || rest.includes("-h")) {
    ctx.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      ctx.stderr.write(`switchboard ${command.name}: ${error.message}\n${command.help.split("\n")[0] ?? ""}\n(see \`switchboard ${command.name} --help\`)\n`);
      return EXIT.usage;
    }
    if (error instanceof CliError) {
      ctx.stderr.write(`error: ${printable(error.message, { keepNewlines: true })}\n`);
      return error.exitCode;
    }
    ctx.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.error;
  }
}

/** The process wiring, for bin.mjs. */
export async function runProcess(): Promise<never> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    // A second Ctrl-C leaves at once, even if cleanup hangs.
    if (++interrupts > 1) process.exit(EXIT.sigint);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const code = await main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    interactive: process.stdin.isTTY === true,
  });
  // Let piped stdout drain before exiting.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  process.exit(code);
}
