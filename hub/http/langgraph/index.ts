/**
 * hub/http/langgraph: the LangGraph API (`@langchain/langgraph-sdk` 1.15's
 * REST surface) as a second door into the same hub — the same run manager,
 * thread log, review routing and authorization as the thread stream
 * protocol. docs/langgraph-api.md lists every route and what differs.
 */
import type { Hono } from "hono";
import type { HubServices } from "../../services.ts";
import type { AppHooks } from "../hooks.ts";
import { StreamSettings, type LgDeps } from "./access.ts";
import type { LgEnv } from "./http.ts";
import { addAssistantRoutes } from "./assistants.ts";
import { addRunRoutes } from "./runs.ts";
import { addStatelessRunRoutes } from "./stateless.ts";
import { addStoreRoutes } from "./store.ts";
import { addThreadRoutes } from "./threads.ts";

export function addLangGraphRoutes(app: Hono<LgEnv>, services: HubServices, hooks: AppHooks): void {
  const deps: LgDeps = { services, hooks, streamSettings: new StreamSettings() };
  addAssistantRoutes(app, deps);
  addThreadRoutes(app, deps);
  addRunRoutes(app, deps);
  addStatelessRunRoutes(app, deps);
  addStoreRoutes(app, deps);
}
