/**
 * `switchboard token`: mints a development JWT (HS256) with the hub's secret,
 * SWITCHBOARD_JWT_SECRET. Prints only the token, for `$(…)`.
 */
import { ADMIN_ROLE, THREAD_ROLES, mintToken } from "../../../hub/index.ts";
import { CliError, EXIT, UsageError, parse } from "../args.ts";
import type { Command } from "../context.ts";

const HELP = `Usage: switchboard token --sub <subject> [--roles r1,r2] [--tenant t] [--name "Display Name"] [--expires 1h]

Mints a development JWT signed with SWITCHBOARD_JWT_SECRET (the hub's secret,
at least 32 bytes) and prints it. Use it with --token or SWITCHBOARD_TOKEN:

  export SWITCHBOARD_TOKEN=$(switchboard token --sub alice --roles observer,reviewer)

Options:
  --sub <id>        the subject (required)
  --roles <list>    comma-separated roles (repeatable): observer (watch), reviewer
                    (watch and answer), operator (watch and start runs), admin
                    (everything). A misspelt one is refused; another name is a
                    custom role for review routing (minted with a note)
  --tenant <t>      the tenant (the hub's default tenant when omitted)
  --name <name>     display name shown to other reviewers (answered by …)
  --expires <span>  lifetime, e.g. 15m, 1h, 7d (default 1h; "never" for no exp)
  --link            print a sign-in URL for the web app instead of the bare token:
                    it hands the token to the page once (kept in the tab's
                    sessionStorage, removed from the address bar)
  --url <url>       the hub the link opens (default $SWITCHBOARD_URL or http://localhost:8787)
  -h, --help        this help`;

/** The web app's sign-in link: the token travels in the fragment, which never reaches a server or its logs. */
export function signInLink(hubUrl: string, token: string): string {
  const base = hubUrl.replace(/\/+$/, "");
  return `${base}/#token=${encodeURIComponent(token)}`;
}

/** The roles the hub itself grants something to (hub/auth/principal.ts). */
const HUB_ROLES = [...THREAD_ROLES, ADMIN_ROLE] as const;

/**
 * A near miss of a hub role (`reviwer`) is a typo that would mint a token that
 * silently cannot answer: refused. Any other name is a custom role, which only
 * review routing gives meaning to: minted, with a note. Returns the notes.
 */
function checkRoles(roles: readonly string[]): string[] {
  const notes: string[] = [];
  for (const role of roles) {
    if ((HUB_ROLES as readonly string[]).includes(role)) continue;
    const near = HUB_ROLES.find((known) => editDistance(role.toLowerCase(), known) <= 2);
    if (near !== undefined) throw new UsageError(`unknown role ${JSON.stringify(role)} (did you mean ${JSON.stringify(near)}?); the roles are ${HUB_ROLES.join(", ")}`);
    notes.push(`${JSON.stringify(role)} is not one of the hub's roles (${HUB_ROLES.join(", ")}): it grants nothing by itself, only what review routing gives it`);
  }
  // Every thread role may watch (hub/auth/principal.ts canPerform): only a token with none of them cannot.
  if (!roles.some((r) => (HUB_ROLES as readonly string[]).includes(r))) {
    notes.push("without one of the hub's roles this token can connect but not watch, review or start runs (observer = watch, reviewer = watch and answer, operator = watch and start runs, admin = everything)");
  }
  return notes;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length] ?? 0;
}

const OPTIONS = {
  sub: { type: "string" },
  roles: { type: "string", multiple: true },
  tenant: { type: "string" },
  name: { type: "string" },
  expires: { type: "string" },
  link: { type: "boolean" },
  url: { type: "string" },
} as const;

export const tokenCommand: Command = {
  name: "token",
  help: HELP,
  async run(argv, ctx) {
    const { values } = parse(argv, OPTIONS, 0);
    if (values.sub === undefined || values.sub.trim() === "") throw new UsageError("token needs --sub, e.g. `switchboard token --sub alice --roles observer,reviewer`");
    const expires = values.expires ?? "1h";
    if (expires !== "never" && !/^\d+\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w|week|weeks)$/i.test(expires)) {
      throw new UsageError(`--expires must be a span like 15m, 1h or 7d (or "never"), got ${JSON.stringify(expires)}`);
    }
    const secret = ctx.env["SWITCHBOARD_JWT_SECRET"];
    if (secret === undefined || secret === "") {
      throw new CliError("SWITCHBOARD_JWT_SECRET is not set. Set it to the hub's secret (32+ bytes); a hub without it runs in open dev mode and needs no token.");
    }
    const roles = (values.roles ?? []).flatMap((r) => r.split(",")).map((r) => r.trim()).filter((r) => r !== "");
    const notes = checkRoles(roles);
    let token: string;
    try {
      token = await mintToken(
        { sub: values.sub, roles, tenant: values.tenant, name: values.name, expiresIn: expires === "never" ? undefined : expires },
        secret,
      );
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error));
    }
    for (const note of notes) ctx.stderr.write(`note: ${note}\n`);
    ctx.stdout.write(values.link ? `${signInLink(values.url ?? ctx.env["SWITCHBOARD_URL"] ?? "http://localhost:8787", token)}\n` : `${token}\n`);
    return EXIT.ok;
  },
};
