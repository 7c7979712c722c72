/**
 * The frame around every view: brand and navigation (with the live count of
 * open items), who you are and how the hub authenticates, token expiry, the
 * connection banner, and the routed view. The inbox queue is followed here,
 * for the page's whole life, so the count and presence stay live everywhere.
 */
import { Component, Suspense, lazy, useEffect, useMemo, useState, type ReactNode } from "react";
import { DEV_AS_NAME } from "../../../hub/protocol/index.ts";
import { Avatar } from "./components/people.tsx";
import { countdown } from "./format.ts";
import { hasRole, useConnectionState, useNow, useQueueItems, useSession } from "./hub.tsx";
import { hrefOf, useRoute } from "./router.ts";
import { storeDevAs, storedDevAs } from "./session.ts";
import { InboxView, INBOX_QUEUE, stillMine } from "./views/inbox.tsx";
import { RunView } from "./views/run.tsx";
import { ThreadsView } from "./views/threads.tsx";

// The item view carries the Markdown renderer and the JSON Schema validator: its own chunk,
// off the inbox's first render, fetched once the page is idle.
const loadItemView = () => import("./views/item.tsx");
const ItemView = lazy(() => loadItemView().then((m) => ({ default: m.ItemView })));

/** A view that failed to load (its chunk is gone after a redeploy, the network dropped) says so instead of blanking the page. */
class ViewBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <main className="page">
        <div className="notice notice-bad" role="alert">
          This view could not be loaded ({this.state.error.message}).{" "}
          <button type="button" className="btn btn-small" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      </main>
    );
  }
}

function ConnectionBanner(): ReactNode {
  const { client } = useSession();
  const state = useConnectionState(client);
  if (state === "open" || state === "idle") return null;
  const text = state === "connecting" ? "Connecting to the hub…" : state === "reconnecting" ? "Reconnecting… the page will catch up where it left off." : "Disconnected from the hub.";
  return (
    <div className={`banner ${state === "closed" ? "banner-bad" : "banner-warn"}`} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {text}
      {state === "closed" && (
        <button type="button" className="btn btn-small" onClick={() => window.location.reload()}>
          Reload
        </button>
      )}
    </div>
  );
}

/** Open dev mode: act as another user in this tab (the hub takes `dev.<name>` as that user). */
function ActAs(): ReactNode {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState("");
  const acting = storedDevAs() !== null;
  const switchTo = (next: string | null): void => {
    storeDevAs(next);
    window.location.reload();
  };
  if (!editing) {
    return (
      <button type="button" className="btn btn-small btn-quiet" onClick={() => setEditing(true)} title="Open dev mode: try routing and quorums as several people, one per tab">
        Act as…
      </button>
    );
  }
  const valid = DEV_AS_NAME.test(name.trim());
  return (
    <form
      className="act-as"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) switchTo(name.trim() === "dev" ? null : name.trim());
      }}
    >
      <input type="text" aria-label="Act as user" placeholder="rita" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      <button type="submit" className="btn btn-small" disabled={!valid}>
        Act as
      </button>
      {acting && (
        <button type="button" className="btn btn-small btn-quiet" onClick={() => switchTo(null)}>
          Back to dev
        </button>
      )}
    </form>
  );
}

function Identity(): ReactNode {
  const { me, signOut } = useSession();
  const now = useNow(15_000);
  const { principal } = me;
  const roles = principal.roles.join(", ") || "no roles";
  return (
    <div className="identity">
      {me.auth === "open" ? (
        <span className="pill pill-warn" title="SWITCHBOARD_JWT_SECRET is not set: every request has all roles, as the dev principal or the user this tab acts as">
          Open dev mode
        </span>
      ) : (
        me.expires_at !== null && <span className="muted small">token expires {countdown(me.expires_at, now)}</span>
      )}
      <span className="who" aria-label={`Signed in as ${principal.name} (${roles})`}>
        <Avatar person={principal} />
        <span className="who-text">
          <span className="who-name">{principal.name}</span>
          <span className="who-roles">{roles}</span>
        </span>
      </span>
      {me.auth === "jwt" && (
        <button type="button" className="btn btn-small btn-quiet" onClick={() => signOut()}>
          Sign out
        </button>
      )}
      {me.auth === "open" && <ActAs />}
    </div>
  );
}

export function Shell(): ReactNode {
  const { client, me } = useSession();
  const route = useRoute();
  const reviewer = hasRole(me, "reviewer");
  const inbox = useMemo(() => client.queue(INBOX_QUEUE), [client]);
  const { items: all } = useQueueItems(inbox);
  // Items reassigned away from me are still listed (greyed) but no longer count.
  const items = useMemo(() => all.filter((i) => stillMine(i.review, me.principal)), [all, me.principal]);
  useEffect(() => {
    if (reviewer) void inbox.subscribe().catch(() => undefined);
  }, [inbox, reviewer]);
  useEffect(() => {
    const timer = setTimeout(() => void loadItemView().catch(() => undefined), 1500);
    return () => clearTimeout(timer);
  }, []);

  let view: ReactNode;
  switch (route.view) {
    case "inbox":
      view = <InboxView queue={inbox} />;
      break;
    case "item":
      view = <ItemView key={`${route.threadId}/${route.interruptId}`} threadId={route.threadId} interruptId={route.interruptId} queue={inbox} />;
      break;
    case "threads":
      view = <ThreadsView />;
      break;
    case "thread":
      view = <RunView key={route.threadId} threadId={route.threadId} />;
      break;
    case "missing":
      view = (
        <main className="page">
          <h1>Nothing here</h1>
          <p>
            No page at <code>{route.path}</code>. <a href={hrefOf({ view: "inbox" })}>Go to the inbox</a>.
          </p>
        </main>
      );
      break;
  }
  const section = route.view === "thread" || route.view === "threads" ? "threads" : "inbox";
  return (
    <div className="app">
      <header className="topbar">
        <a className="brand" href="#/">
          <span className="brand-mark" aria-hidden="true" />
          Switchboard
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={section === "inbox" ? "page" : undefined}>
            Inbox{reviewer && <span className="count" aria-label={`${items.length} open`}>{items.length}</span>}
          </a>
          <a href="#/threads" aria-current={section === "threads" ? "page" : undefined}>
            Threads
          </a>
        </nav>
        <Identity />
      </header>
      <ConnectionBanner />
      <ViewBoundary key={route.view}>
      <Suspense
        fallback={
          <main className="page" aria-busy="true">
            <p className="muted">Loading…</p>
          </main>
        }
      >
        {view}
      </Suspense>
      </ViewBoundary>
    </div>
  );
}
