/** The webhooks config is checked at start: a bad endpoint is one clear line, not a hub that signs with garbage. */
import { expect, it } from "vitest";
import { validateConfig } from "../../../../hub/config.ts";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";

const endpoint = { id: "ops", url: "https://hooks.example.com/x", secret: newSecret(), tenant: "acme" };

it("validates webhook endpoints: URL, whsec_ secret, unique ids, known keys", () => {
  expect(validateConfig({ webhooks: { endpoints: [endpoint] } }).webhooks?.endpoints).toHaveLength(1);
  expect(() => validateConfig({ webhooks: { endpoints: [{ ...endpoint, url: "ftp://x" }] } })).toThrow(/webhooks\.endpoints\.0\.url must be an http\(s\) URL/);
  expect(() => validateConfig({ webhooks: { endpoints: [{ ...endpoint, secret: "hunter2" }] } })).toThrow(/secret must be whsec_/);
  expect(() => validateConfig({ webhooks: { endpoints: [{ ...endpoint, secret: "whsec_c2hvcnQ=" }] } })).toThrow(/secret must be whsec_/);
  expect(() => validateConfig({ webhooks: { endpoints: [endpoint, endpoint] } })).toThrow(/must have unique ids/);
  expect(() => validateConfig({ webhooks: { endpoints: [{ ...endpoint, evnets: ["x"] }] } })).toThrow(/unknown key "webhooks\.endpoints\.0\.evnets" \(did you mean "events"\?\)/);
  expect(() => validateConfig({ webhooks: { endpoints: [endpoint], maxAttempts: 0 } })).toThrow(/maxAttempts/);
});

it("validates answerLinks: a secret of 32 bytes or more, a duration, an http(s) base URL", () => {
  expect(validateConfig({ answerLinks: { secret: "x".repeat(32), ttl: "2h", baseUrl: "https://inbox.example.com" } }).answerLinks).toMatchObject({ ttl: "2h" });
  expect(() => validateConfig({ answerLinks: { secret: "short" } })).toThrow(/answerLinks\.secret must be at least 32 bytes/);
  expect(() => validateConfig({ answerLinks: { ttl: "soon" } })).toThrow(/answerLinks\.ttl/);
  expect(() => validateConfig({ answerLinks: { baseUrl: "mailto:x" } })).toThrow(/answerLinks\.baseUrl must be the http\(s\) URL/);
});
