/**
 * Serves the built web app (client/web/dist) at `/`, on the API's origin (no
 * CORS). `index.html` is revalidated on every load (`no-cache`), so a rebuilt
 * app is picked up at once; the hashed files under `assets/` never change
 * under their name and are cached for a year (`immutable`). Text is gzipped
 * for clients that accept it. Without a build, `/` says how to make one.
 */
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import type { Env, Hono } from "hono";
import { compress } from "hono/compress";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export const IMMUTABLE = "public, max-age=31536000, immutable";

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchboard</title></head>
<body style="font:16px system-ui;margin:4rem auto;max-width:36rem;color:#1f2430">
<h1>The web app is not built</h1>
<p>Run <code>npm run build:web</code> (or <code>npm start</code>, which builds it when it is missing or stale), then reload.</p>
</body></html>`;

/** A file under `root`, or undefined for a path that leaves it or names no file. */
async function fileUnder(root: string, path: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const full = normalize(join(root, decoded));
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  const info = await stat(full).catch(() => undefined);
  return info?.isFile() ? full : undefined;
}

export function addWebApp<E extends Env>(app: Hono<E>, root: string | null): void {
  const base = root === null ? null : normalize(root);
  const send = async (path: string, cacheControl: string): Promise<Response | undefined> => {
    if (base === null) return undefined;
    const file = await fileUnder(base, path);
    if (file === undefined) return undefined;
    const body = await readFile(file);
    return new Response(body, { headers: { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": cacheControl } });
  };
  const zip = compress();

  app.get("/", zip, async () => (await send("index.html", "no-cache")) ?? new Response(NOT_BUILT, { status: 200, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } }));
  app.get("/index.html", zip, async (c) => (await send("index.html", "no-cache")) ?? c.notFound());
  app.get("/assets/*", zip, async (c) => (await send(new URL(c.req.url).pathname, IMMUTABLE)) ?? c.notFound());
}
