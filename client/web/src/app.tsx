/**
 * The page: finds out how the hub authenticates, signs in (open dev mode: the
 * dev principal; JWT: a token from a sign-in link or typed in), opens the
 * one HubClient, and shows the shell — navigation, who you are, the
 * connection banner — around the routed view. An expired or refused token
 * returns to sign-in; the page never sits there silently not updating.
 */
import { Suspense, lazy, useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { HubClient, HubClientError, platformSocketFactory } from "../../index.ts";
import { DEV_AS_PREFIX } from "../../../hub/protocol/index.ts";
import { Shell } from "./shell.tsx";
import { SessionProvider, type Session } from "./hub.tsx";
import { adoptTokenFromUrl, forgetToken, isExpired, readClaims, storeDevAs, storedDevAs, storedToken, storeToken } from "./session.ts";
import { SignIn } from "./views/signin.tsx";
import { linkRouteOf } from "./router.ts";

// The answer-link page carries every answer form (the schema form and its validator):
// its own chunk, fetched only when a link is opened, off the signed-in app's first load.
const LinkPage = lazy(() => import("./views/link.tsx").then((m) => ({ default: m.LinkPage })));

type Phase = { kind: "loading" } | { kind: "signin"; reason?: string | undefined } | { kind: "ready"; session: Session } | { kind: "down"; message: string };

const origin = () => window.location.origin;

function expiredMessage(at: number | null | undefined): string {
  return at ? `Your token expired at ${new Date(at).toLocaleTimeString()}. Sign in again.` : "Your token expired. Sign in again.";
}

export function App(): ReactNode {
  // An answer link is its own credential: its page needs no sign-in and no connection.
  const link = linkRouteOf(window.location.hash);
  if (link) {
    return (
      <Suspense fallback={<main className="page" aria-busy="true" />}>
        <LinkPage interruptId={link.interruptId} token={link.token} />
      </Suspense>
    );
  }
  return <SignedInApp />;
}

function SignedInApp(): ReactNode {
  const [phase, setPhase] = useState<Phase>({ kind: "loading" });
  const clientRef = useRef<HubClient | null>(null);

  const signOut = useCallback((reason?: string, keepToken = false) => {
    clientRef.current?.close();
    clientRef.current = null;
    if (!keepToken) forgetToken();
    setPhase({ kind: "signin", reason });
  }, []);

  const start = useCallback(async () => {
    setPhase({ kind: "loading" });
    let auth: "jwt" | "open";
    try {
      const probe = new HubClient({ url: origin(), reconnect: false, socketFactory: platformSocketFactory() });
      auth = (await probe.health()).auth;
      probe.close();
    } catch (error) {
      setPhase({ kind: "down", message: error instanceof Error ? error.message : String(error) });
      return;
    }
    let token: string | undefined;
    if (auth === "jwt") {
      const stored = storedToken();
      const claims = stored ? readClaims(stored) : null;
      if (!stored) return setPhase({ kind: "signin" });
      if (isExpired(claims)) return signOut(expiredMessage(claims?.expiresAt));
      token = stored;
    } else {
      const devAs = storedDevAs();
      if (devAs !== null) token = `${DEV_AS_PREFIX}${devAs}`;
    }
    const expiresAt = token && auth === "jwt" ? (readClaims(token)?.expiresAt ?? null) : null;
    const client = new HubClient({
      url: origin(),
      socketFactory: platformSocketFactory(),
      reconnect: { initialDelayMs: 250, maxDelayMs: 4000 },
      ...(token === undefined
        ? {}
        : {
            // Asked before every (re)connect: a refused or expired token stops the client instead of retrying.
            token: ({ closeCode }) => {
              if (expiresAt !== null && expiresAt <= Date.now()) throw new HubClientError("unauthenticated", expiredMessage(expiresAt));
              if (closeCode === 4401) throw new HubClientError("unauthenticated", "The hub refused your token. Sign in again.");
              return token;
            },
          }),
    });
    clientRef.current = client;
    try {
      const me = await client.me();
      setPhase({ kind: "ready", session: { client, me, signOut: (reason?: string) => signOut(reason) } });
    } catch (error) {
      client.close();
      // Open dev mode refused who this tab acts as: back to the dev principal.
      if (auth === "open" && storedDevAs() !== null) {
        storeDevAs(null);
        return start();
      }
      if (error instanceof HubClientError && error.code === "unauthenticated") return signOut(error.message);
      setPhase({ kind: "down", message: error instanceof Error ? error.message : String(error) });
    }
  }, [signOut]);

  useEffect(() => {
    void start();
    // A sign-in link opened in a tab that already shows the app changes only the fragment.
    const onHash = () => {
      if (adoptTokenFromUrl()) {
        clientRef.current?.close();
        void start();
      }
    };
    window.addEventListener("hashchange", onHash);
    return () => {
      window.removeEventListener("hashchange", onHash);
      clientRef.current?.close();
    };
  }, [start]);

  // Expiry and refusals end the session visibly.
  const session = phase.kind === "ready" ? phase.session : null;
  useEffect(() => {
    if (!session) return;
    const offError = session.client.on("error", (error) => {
      if (error.code === "unauthenticated") signOut(error.message);
    });
    const at = session.me.expires_at;
    const timer = at === null ? undefined : setTimeout(() => signOut(expiredMessage(at)), Math.max(0, at - Date.now()));
    return () => {
      offError();
      clearTimeout(timer);
    };
  }, [session, signOut]);

  switch (phase.kind) {
    case "loading":
      return (
        <main className="center-page" aria-busy="true">
          <p className="muted">Connecting to the hub…</p>
        </main>
      );
    case "down":
      return (
        <main className="center-page">
          <div className="card narrow" role="alert">
            <h1>The hub did not answer</h1>
            <p className="muted">{phase.message}</p>
            <button type="button" className="btn btn-primary" onClick={() => void start()}>
              Try again
            </button>
          </div>
        </main>
      );
    case "signin":
      return (
        <SignIn
          reason={phase.reason}
          onToken={(token) => {
            storeToken(token);
            void start();
          }}
        />
      );
    case "ready":
      return (
        <SessionProvider value={phase.session}>
          <Shell />
        </SessionProvider>
      );
  }
}
