// The smoke test's CommonJS client (copied as client.js into a project without
// "type": "module"): require("switchboard/client"), start a run of the config's
// graph, read its state at the interrupt, answer it, read the final state.
// Prints one JSON line per step; exits non-zero on any failure.
const { HubClient } = require("switchboard/client");

async function main(url) {
  const client = new HubClient({ url, reconnect: false });
  try {
    const thread = client.thread();
    const statuses = thread.iterate("status");
    await thread.run("greeter", { name: "smoke" });
    for await (const status of statuses) {
      if (status.status === "interrupted") {
        const [question] = thread.interrupts;
        console.log(JSON.stringify({ step: "interrupted", values: thread.values, payload: question && question.payload }));
        await thread.respond(question.interrupt_id, { approve: true });
      }
      if (status.status === "completed" || status.status === "failed") {
        console.log(JSON.stringify({ step: status.status, values: thread.values }));
        break;
      }
    }
    const state = await (await fetch(`${url}/threads/${thread.id}/state`)).json();
    console.log(JSON.stringify({ step: "state", values: state.values, next: state.next }));
  } finally {
    client.close();
  }
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exit(1);
});
