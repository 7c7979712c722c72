/**
 * Fixtures for the LangGraph API tests: the official `@langchain/langgraph-sdk`
 * client against a real hub on port 0, principals minted for a JWT hub (the
 * SDK sends them as `x-api-key`), and a collector for run streams.
 */
import { Client } from "@langchain/langgraph-sdk";
import { mintToken } from "../../../../hub/auth/index.ts";
import type { HubConfig } from "../../../../hub/index.ts";
import { testHub } from "../../../support/hub.ts";

export const SECRET = "langgraph-api-test-secret-long-enough!!";
export const OPERATOR = ["observer", "operator"];
export const REVIEWER = ["observer", "reviewer"];
export const EVERYTHING = ["observer", "operator", "reviewer"];

type RunningHub = Awaited<ReturnType<typeof testHub>>;

export async function lgHub(config: HubConfig = {}): Promise<RunningHub> {
  return testHub({ demoTokenDelayMs: 1, ...config });
}

/** An SDK client; with `sub`, authenticated by a token in its `apiKey` option (x-api-key). */
export async function sdk(hub: RunningHub, sub?: string, roles: readonly string[] = EVERYTHING, tenant = "acme"): Promise<Client> {
  const apiKey = sub === undefined ? null : await mintToken({ sub, name: `${sub} (token)`, tenant, roles: [...roles], expiresIn: "10 min" }, SECRET);
  return new Client({ apiUrl: hub.url, apiKey, callerOptions: { maxRetries: 0 } });
}

export interface StreamPart {
  event: string;
  data: unknown;
  id?: string | undefined;
}

/** Every part of a run stream, in order. */
export async function collect(stream: AsyncIterable<StreamPart>, onPart?: (part: StreamPart) => void | Promise<void>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) {
    parts.push(part);
    await onPart?.(part);
  }
  return parts;
}

/** The text of the `messages-tuple` chunks of a stream, joined. */
export function tupleText(parts: readonly StreamPart[]): string {
  return parts
    .filter((p) => p.event === "messages")
    .map((p) => {
      const [chunk] = p.data as [{ content?: unknown }, unknown];
      return typeof chunk.content === "string" ? chunk.content : "";
    })
    .join("");
}

export type Interrupts = Array<{ id: string; value: unknown }>;

export function interruptsIn(part: StreamPart | undefined): Interrupts {
  const data = part?.data as { __interrupt__?: Interrupts } | undefined;
  return data?.__interrupt__ ?? [];
}
