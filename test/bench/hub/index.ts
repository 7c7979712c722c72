/** The hub suites (Switchboard hub vs a bare ws server), in the order they run and appear in the table. */
import type { SuiteGroup } from "../suite.ts";
import { fanoutSuite } from "./fanout.ts";
import { reconnectSuite } from "./reconnect.ts";
import { memorySuite } from "./memory.ts";
import { reviewSuite } from "./review.ts";

export const hubGroup: SuiteGroup = {
  name: "hub",
  title: "Hub: Switchboard vs a bare ws server",
  peer: "bare ws",
  packages: ["ws", "hono", "@hono/node-server"],
  suites: [fanoutSuite, reconnectSuite, reviewSuite, memorySuite],
};
