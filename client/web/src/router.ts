/**
 * Hash routes, so that every view has a shareable URL and none collides with
 * the hub's own paths (`/threads/:id` is the REST API on the same origin):
 * `#/` inbox, `#/items/:thread/:interrupt`, `#/threads`, `#/threads/:id`.
 */
import { useSyncExternalStore } from "react";

export type Route =
  | { view: "inbox" }
  | { view: "item"; threadId: string; interruptId: string }
  | { view: "threads" }
  | { view: "thread"; threadId: string }
  | { view: "missing"; path: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "").replace(/^\/?/, "/");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "inbox")) return { view: "inbox" };
  if (parts[0] === "items" && parts.length === 3) return { view: "item", threadId: parts[1] ?? "", interruptId: parts[2] ?? "" };
  if (parts[0] === "threads" && parts.length === 1) return { view: "threads" };
  if (parts[0] === "threads" && parts.length === 2) return { view: "thread", threadId: parts[1] ?? "" };
  return { view: "missing", path };
}

export function hrefOf(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.view) {
    case "inbox":
      return "#/";
    case "item":
      return `#/items/${enc(route.threadId)}/${enc(route.interruptId)}`;
    case "threads":
      return "#/threads";
    case "thread":
      return `#/threads/${enc(route.threadId)}`;
    case "missing":
      return `#${route.path}`;
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(
    (notify) => {
      window.addEventListener("hashchange", notify);
      return () => window.removeEventListener("hashchange", notify);
    },
    () => window.location.hash,
  );
  return parseRoute(hash);
}

/**
 * The link route's parts, when the page was opened by an answer link
 * (`#/link/<interrupt>/<token>`): that page is outside the signed-in routes.
 */
export function linkRouteOf(hash: string): { interruptId: string; token: string } | null {
  const match = /^#\/link\/([^/]+)\/([^/?#]+)$/.exec(hash);
  if (!match) return null;
  try {
    return { interruptId: decodeURIComponent(match[1] ?? ""), token: decodeURIComponent(match[2] ?? "") };
  } catch {
    return null;
  }
}
