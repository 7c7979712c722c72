/**
 * The README's quick start, runnable: start a `review` run, watch its draft
 * stream, approve the question, wait for the end. `npx tsx client/examples/quickstart.ts [url]`.
 */
import { HubClient } from "../index.ts";

export async function quickstart(url: string, token?: () => Promise<string>): Promise<Record<string, unknown> | null> {
  const client = new HubClient({ url, ...(token ? { token } : {}) });
  const thread = client.thread(); // a new thread id
  thread.on("messages", (messages) => process.stdout.write(`\r${messages.at(-1)?.text.length ?? 0} chars drafted`));
  const statuses = thread.iterate("status"); // listen before the run starts
  await thread.run("review", { topic: "the release" }); // subscribes first

  for await (const status of statuses) {
    if (status.status === "interrupted") {
      const [question] = thread.interrupts;
      if (question) await thread.respond(question.interrupt_id, { approve: true });
    }
    if (status.status === "completed" || status.status === "failed") break; // break unsubscribes
  }
  client.close();
  return thread.values;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const values = await quickstart(process.argv[2] ?? "http://localhost:8787");
  console.log("\nfinal state:", values);
}
