/**
 * `GET /ok` and `GET /info`, outside auth as on the LangGraph server: what a
 * client (Studio, the SDK's health checks) asks before it has a key.
 */
import type { Hono } from "hono";
import type { LgEnv } from "./http.ts";

export const LG_INFO = {
  version: "0.1.0",
  context: "switchboard",
  /** What this server offers of the LangGraph API (docs/langgraph-api.md). */
  flags: { assistants: true, crons: false, langsmith: false, store: true, threads: true, runs: true },
} as const;

export function addInfoRoutes(app: Hono<LgEnv>): void {
  app.get("/ok", (c) => c.json({ ok: true }));
  app.get("/info", (c) => c.json(LG_INFO));
}
