/**
 * The layering rules (rules.ts) hold over engine/, hub/ and client/: a new
 * import circle, an engine import of the hub, a `ws` import outside hub/ws or
 * a database driver outside hub/storage fails `npm test` here.
 */
import { expect, it } from "vitest";
import { checkLayers, describeViolations } from "./cruise.ts";

it("the source tree follows the layering rules", async () => {
  const { modules, violations } = await checkLayers();
  expect(modules).toBeGreaterThan(150); // the cruise saw the tree, not an empty folder
  expect(describeViolations(violations)).toEqual([]);
}, 60_000);
