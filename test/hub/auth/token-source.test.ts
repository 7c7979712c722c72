/** tokenFromRequest: Authorization, then x-api-key, then ?access_token=, then bearer.<token> subprotocol. */
import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { tokenFromRequest } from "../../../hub/auth/index.ts";

const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl";
const url = (query = "") => new URL(`http://127.0.0.1/threads/t1/stream${query}`);

describe("tokenFromRequest", () => {
  it("returns undefined when there are no credentials", () => {
    expect(tokenFromRequest({}, url())).toBeUndefined();
    expect(tokenFromRequest(new Headers(), url("?other=1"))).toBeUndefined();
    expect(tokenFromRequest({ "sec-websocket-protocol": "switchboard" }, url())).toBeUndefined();
  });

  it("reads Authorization: Bearer from Headers and plain records, any case", () => {
    expect(tokenFromRequest(new Headers({ Authorization: `Bearer ${JWT}` }), url())).toEqual({
      ok: true,
      token: JWT,
      source: "authorization",
    });
    expect(tokenFromRequest({ Authorization: `bearer   ${JWT}  ` }, url())).toMatchObject({ ok: true, token: JWT });
  });

  it("accepts Node's IncomingHttpHeaders", () => {
    const headers: IncomingHttpHeaders = { authorization: `Bearer ${JWT}`, "sec-websocket-protocol": "switchboard" };
    expect(tokenFromRequest(headers, url())).toMatchObject({ ok: true, token: JWT, source: "authorization" });
  });

  it("prefers the header over the query and the subprotocol", () => {
    const headers = { authorization: `Bearer ${JWT}`, "sec-websocket-protocol": "bearer.fromprotocol" };
    expect(tokenFromRequest(headers, url("?access_token=fromquery"))).toMatchObject({ token: JWT, source: "authorization" });
  });

  it("reads the LangGraph SDK's x-api-key header as the bearer token, after Authorization", () => {
    expect(tokenFromRequest({ "X-Api-Key": ` ${JWT} ` }, url(`?access_token=fromquery`))).toEqual({ ok: true, token: JWT, source: "api-key" });
    expect(tokenFromRequest(new Headers({ "x-api-key": JWT, authorization: "Bearer fromheader" }), url())).toMatchObject({ token: "fromheader", source: "authorization" });
    expect(tokenFromRequest({ "x-api-key": "" }, url(`?access_token=${JWT}`))).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/empty bearer token in the x-api-key header/) });
    expect(tokenFromRequest({ "x-api-key": "a b" }, url())).toMatchObject({ ok: false, message: expect.stringMatching(/malformed bearer token in the x-api-key/) });
  });

  it("prefers the query over the subprotocol", () => {
    const headers = { "sec-websocket-protocol": "bearer.fromprotocol" };
    expect(tokenFromRequest(headers, url(`?access_token=${JWT}`))).toEqual({ ok: true, token: JWT, source: "query" });
  });

  it("reads a bearer.<token> subprotocol and returns the entry to echo", () => {
    const headers = { "sec-websocket-protocol": `switchboard, bearer.${JWT}` };
    expect(tokenFromRequest(headers, url())).toEqual({
      ok: true,
      token: JWT,
      source: "subprotocol",
      protocol: `bearer.${JWT}`,
    });
  });

  it.each([
    ["Basic dXNlcjpwYXNz", /must use the Bearer scheme \(got "Basic"\)/],
    [JWT, /must use the Bearer scheme/],
    ["", /must use the Bearer scheme \(got empty\)/],
    ["Bearer", /empty bearer token in the Authorization header/],
    ["Bearer    ", /empty bearer token/],
    [`Bearer ${JWT}, Bearer other`, /malformed bearer token in the Authorization header/],
  ])("rejects Authorization %j with a 401 and does not fall through", (value, message) => {
    const result = tokenFromRequest({ authorization: value }, url(`?access_token=${JWT}`));
    expect(result).toMatchObject({ ok: false, status: 401, code: "unauthenticated", message: expect.stringMatching(message) });
  });

  it("rejects an empty or malformed access_token", () => {
    expect(tokenFromRequest({}, url("?access_token="))).toMatchObject({ ok: false, message: expect.stringMatching(/empty bearer token in the access_token/) });
    expect(tokenFromRequest({}, url("?access_token=a%20b"))).toMatchObject({ ok: false, message: expect.stringMatching(/malformed/) });
  });

  it("rejects an empty bearer. subprotocol", () => {
    expect(tokenFromRequest({ "sec-websocket-protocol": "bearer." }, url())).toMatchObject({
      ok: false,
      status: 401,
      message: expect.stringMatching(/empty bearer token in the bearer subprotocol/),
    });
  });
});
