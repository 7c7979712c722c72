/**
 * A webhook receiver for tests: node:http on a free port that checks every
 * request's signature with the Standard Webhooks reference library
 * (`standardwebhooks`, written independently of the hub's signing code) and
 * answers with what `respond` says (a status, or hang until the connection closes).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { onCleanup } from "../../../support/cleanup.ts";

export interface Received {
  id: string;
  type: string;
  body: Record<string, unknown>;
  data: Record<string, unknown>;
  /** Whether `standardwebhooks` verified the signature. */
  verified: boolean;
  verifyError?: string;
  headers: IncomingMessage["headers"];
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests whose answer was 2xx. */
  accepted: Received[];
  close(): Promise<void>;
}

export type Respond = (request: Received, index: number) => number | "hang" | Promise<number>;

export async function startReceiver(secret: string, respond: Respond = () => 204): Promise<Receiver> {
  const verifier = new Webhook(secret);
  const received: Received[] = [];
  const accepted: Received[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let verified = false;
      let verifyError: string | undefined;
      try {
        verifier.verify(text, req.headers as Record<string, string>);
        verified = true;
      } catch (error) {
        verifyError = String(error);
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      const entry: Received = {
        id: String(req.headers["webhook-id"]),
        type: String(body["type"]),
        body,
        data: body["data"] as Record<string, unknown>,
        verified,
        ...(verifyError === undefined ? {} : { verifyError }),
        headers: req.headers,
      };
      const index = received.push(entry) - 1;
      void Promise.resolve(verified ? respond(entry, index) : 401).then((status) => {
        if (status === "hang") {
          open.add(res);
          return;
        }
        if (status >= 200 && status < 300) accepted.push(entry);
        res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "" : `receiver says ${status}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    for (const res of open) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  onCleanup(close);
  return { url: `http://127.0.0.1:${port}/hook`, received, accepted, close };
}
