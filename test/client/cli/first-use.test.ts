/**
 * What a new user hits first with `watch`, `review` and `token` (issue 14
 * item 16), against a real hub: a mistyped thread id is said to have never
 * run (and is not created); when the hub shuts down the commands stop with
 * the documented exit code instead of retrying; a refused token prints the
 * hub's reason; `token` refuses a misspelt role and warns about a custom one,
 * and its note about what a token cannot do is right.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { HubClient, HubClientError } from "../../../client/index.ts";
import { hubTarget } from "../../../client/cli/args.ts";
import { cliReconnect } from "../../../client/cli/connect.ts";
import { mintToken } from "../../../hub/index.ts";
import { SECRET, cli, createThread, startTestHub } from "./harness.ts";

describe("first use of watch, review and token", { timeout: 90_000 }, () => {
  it("watch and review --thread on a thread that never ran say so, exit 1, and create nothing", async () => {
    const hub = await startTestHub();
    const watch = cli(["watch", "th-typo", "--url", hub.url]);
    await watch.expectExit(1);
    expect(watch.stderr).toContain('thread "th-typo" has never run on this hub');
    const review = cli(["review", "--url", hub.url, "--thread", "th-typo"]);
    await review.expectExit(1);
    expect(review.stderr).toContain('thread "th-typo" has never run on this hub');
    expect((await fetch(`${hub.url}/threads/th-typo`)).status).toBe(404);
  });

  it("after the hub shuts down, watch and review stop with exit 0 (the hub shut down) instead of retrying", async () => {
    const hub = await startTestHub();
    await cli(["run", "review", "--url", hub.url, "--thread", "th-down"]).expectExit(3);
    // A short reconnect budget: the commands still retry, and then stop as they do after 10 s.
    const env = { SWITCHBOARD_RECONNECT_MS: "500" };
    const watch = cli(["watch", "th-down", "--url", hub.url], env);
    await watch.waitFor(/^— live/);
    const review = cli(["review", "--url", hub.url, "--thread", "th-down"], env);
    await review.waitFor("1 open item");
    await hub.close();
    await watch.expectExit(0);
    await review.expectExit(0);
    expect(watch.stderr).toContain("the hub shut down");
    expect(review.stderr).toContain("the hub shut down");
  });

  it("SWITCHBOARD_RECONNECT_MS sets how long a lost connection is retried: 10 s (eight attempts) by default; a malformed value is a usage error", async () => {
    expect(hubTarget({}, {}).reconnectMs).toBe(10_000);
    expect(cliReconnect(10_000)).toEqual({ maxDelayMs: 2_000, maxAttempts: 8 });
    expect(cliReconnect(500).maxAttempts).toBe(2);
    expect(cliReconnect(0).maxAttempts).toBe(0);
    const watch = cli(["watch", "th-any", "--url", "http://127.0.0.1:9"], { SWITCHBOARD_RECONNECT_MS: "10s" });
    await watch.expectExit(2);
    expect(watch.stderr).toContain('SWITCHBOARD_RECONNECT_MS must be a whole number of milliseconds, got "10s"');
  });

  it("a refused token prints the hub's reason (expired at …)", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const exp = Math.floor(Date.now() / 1000) - 3600;
    const expired = await new SignJWT({ roles: ["observer"] }).setProtectedHeader({ alg: "HS256" }).setSubject("ada").setIssuedAt(exp - 60).setExpirationTime(exp).sign(new TextEncoder().encode(SECRET));
    const watch = cli(["watch", "th-any", "--url", hub.url, "--token", expired]);
    await watch.expectExit(1);
    expect(watch.stderr).toContain(`the hub refused the token: token expired at ${new Date(exp * 1000).toISOString()}`);
    expect(watch.stderr).not.toContain("(the hub refused the token)");
  });

  it("token: a misspelt role is refused with the valid ones, a custom role is minted with a warning, the note is right", async () => {
    const env = { SWITCHBOARD_JWT_SECRET: SECRET };
    const typo = cli(["token", "--sub", "ada", "--roles", "observer,reviwer"], env);
    await typo.expectExit(2);
    expect(typo.stderr).toContain('unknown role "reviwer" (did you mean "reviewer"?); the roles are observer, reviewer, operator, admin');
    expect(typo.stdout).toBe("");

    const custom = cli(["token", "--sub", "ada", "--roles", "reviewer,legal"], env);
    await custom.expectExit(0);
    expect(custom.stdout).toMatch(/^ey/);
    expect(custom.stderr).toContain('note: "legal" is not one of the hub\'s roles');

    // A reviewer may watch and review: no note that says otherwise.
    const reviewer = cli(["token", "--sub", "ada", "--roles", "reviewer"], env);
    await reviewer.expectExit(0);
    expect(reviewer.stderr).toBe("");

    const none = cli(["token", "--sub", "ada"], env);
    await none.expectExit(0);
    expect(none.stderr).toContain("note: without one of the hub's roles this token can connect but not watch, review or start runs");
  });

  it("watch prints other people's names escaped; the hub refuses a label with a terminal escape", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const ada = await mintToken({ sub: "ada", name: "Ada", roles: ["operator"] }, SECRET);
    const eve = await mintToken({ sub: "eve", name: "Eve\u001b[2K\rAda (admin)", roles: ["observer"] }, SECRET);
    await createThread(hub.url, "th-esc", ada);
    const watch = cli(["watch", "th-esc", "--url", hub.url, "--token", ada]);
    await watch.waitFor("watching now: you (nobody else)");
    const client = new HubClient({ url: hub.url, token: eve, reconnect: false });
    const thread = client.thread("th-esc");
    await thread.subscribe(["lifecycle"]);
    const refused = await thread.setPresence({ label: "\u001b[1A\u001b[2Kwatching now: you" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HubClientError);
    expect((refused as HubClientError).code).toBe("invalid_argument");
    await thread.setPresence({ label: "phone" });
    const line = await watch.waitFor("watching now: you, Eve");
    expect(line).toBe("watching now: you, Eve\\x1b[2K\\rAda (admin) [phone]");
    expect(watch.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    await thread.close();
    client.close();
    watch.signal("SIGINT");
    await watch.expectExit(130);
  });
});
