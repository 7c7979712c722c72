/**
 * The layering of the tree as rules a dependency checker enforces
 * (dependency-cruiser): which folder may import which. `npm test` runs them
 * (layers.test.ts); `npm run deps` prints the same verdicts on their own.
 */
import type { IForbiddenRuleType } from "dependency-cruiser";

const DRIVERS = "^node_modules/(better-sqlite3|pg|pg-pool|pg-cursor|postgres|ioredis|redis|@redis)/";

export const RULES: IForbiddenRuleType[] = [
  {
    name: "no-circular",
    comment: "No import circles, type-only imports included: a circle means two modules are one idea or a layer is upside down.",
    severity: "error",
    from: {},
    to: { circular: true },
  },
  {
    name: "engine-stands-alone",
    comment: "The engine runs without the hub: nothing in engine/ imports hub/ or client/.",
    severity: "error",
    from: { path: "^engine/" },
    to: { path: "^(hub|client)/" },
  },
  {
    name: "protocol-is-the-wire",
    comment: "hub/protocol is shared with every client: it imports nothing else of the hub and no engine code at runtime.",
    severity: "error",
    from: { path: "^hub/protocol/" },
    to: { path: "^(hub/(?!protocol/)|client/|engine/)", dependencyTypesNot: ["type-only"] },
  },
  {
    name: "sdk-speaks-protocol",
    comment: "The client SDK knows the hub only through its wire (hub/protocol).",
    severity: "error",
    from: { path: "^client/", pathNot: "^client/cli/" },
    to: { path: "^(hub/(?!protocol/)|engine/)" },
  },
  {
    name: "cli-uses-public-surface",
    comment: "The CLI may start a hub (`serve`), but only through the hub's public surface and the wire.",
    severity: "error",
    from: { path: "^client/cli/" },
    to: { path: "^hub/(?!protocol/|index\\.ts$)" },
  },
  {
    name: "web-app-uses-the-sdk",
    comment: "The web app reaches the hub only through the SDK's public surface (client/index.ts) and the wire, never SDK internals or the CLI.",
    severity: "error",
    from: { path: "^client/web/" },
    to: { path: "^client/(?!web/|index\\.ts$)" },
  },
  {
    name: "web-app-runs-in-the-browser",
    comment: "The web app's sources are a browser bundle: no Node built-ins (its build script and Vite config run in Node and may).",
    severity: "error",
    from: { path: "^client/web/src/" },
    to: { dependencyTypes: ["core"] },
  },
  {
    name: "only-hub-ws-imports-ws",
    comment: "hub/ws is the one place that knows the `ws` library; sessions depend on the socket port.",
    severity: "error",
    from: { path: "^(hub|engine)/", pathNot: "^hub/ws/" },
    to: { path: "^node_modules/ws/" },
  },
  {
    name: "entry-points-load-no-driver",
    comment: "`switchboard/engine`, `/client` and `/hub/protocol` load no database driver, not even through another module: each saver has its own entry point (engine/sqlite.ts, engine/postgres.ts).",
    severity: "error",
    from: { path: "^(engine/index|client/index|hub/protocol/index)\\.ts$" },
    to: { path: DRIVERS, reachable: true },
  },
  {
    name: "drivers-in-storage",
    comment: "Database drivers are adapters: only hub/storage and the engine's own savers (and their SQLite opener) import them.",
    severity: "error",
    from: { path: "^(hub|engine|client)/", pathNot: "^(hub/storage/|engine/checkpoint/(sqlite|sqlite-open|postgres)\\.ts$)" },
    to: { path: DRIVERS },
  },
];
