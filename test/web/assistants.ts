/**
 * Assistants the web app's end-to-end tests run beside the demo ones, each
 * raising the kind of question one part of the app must handle:
 * - `budget`: a routed question (queue `finance`, candidates Ada and Rita, a
 *   deadline, a response JSON Schema) about a Markdown draft;
 * - `triage`: LangChain Agent Inbox's `HumanInterrupt`, in its one-element list;
 * - `nested`: a subgraph that streams and then asks, for nested namespaces in
 *   the timeline; its private channel must never reach a page.
 */
import { END, START, ScriptedChatModel, StateGraph, contentText, humanMessage, interrupt, lastValue, type Checkpointer } from "../../engine/index.ts";
import { demoAssistants, type Assistant, type AssistantFactory } from "../../hub/index.ts";

export const BUDGET_DRAFT = "## Q3 budget\n\n- **Cloud**: 12,400 EUR\n- Travel: 3,100 EUR\n\nUp 8% on Q2, mostly the new *streaming* cluster.";
export const BUDGET_SCHEMA = {
  type: "object",
  properties: {
    approve: { type: "boolean" },
    comment: { type: "string", minLength: 5, title: "Comment", description: "Why, in a sentence" },
  },
  required: ["approve", "comment"],
  additionalProperties: false,
} as const;
export const SECRET_VALUE = "s3cret-token-never-shown";
export const NESTED_TEXT = "Looking through the archive for similar reports before asking anyone.";

function budget(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({
    expires: lastValue<string>(),
    title: lastValue<string>(),
    decision: lastValue<unknown>(),
  })
    .addNode("ask", (state) => ({
      decision: interrupt<unknown>({
        question: state.title ?? "Approve the Q3 budget?",
        draft: BUDGET_DRAFT,
        review: { queue: "finance", users: ["u_ada", "u_rita"], expiresIn: state.expires ?? "10m", responseSchema: BUDGET_SCHEMA },
      }),
    }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer, name: "budget" });
  return { id: "budget", description: "test: a routed question with a response schema", graph };
}

function triage(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({ to: lastValue<string>(), decision: lastValue<unknown>() })
    .addNode("tool", (state) => ({
      decision: interrupt<unknown>([
        {
          action_request: { action: "send_email", args: { to: state.to ?? "ada@example.com", subject: "Launch", recipients: 3 } },
          config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
          description: "Send the launch email to the team?",
        },
      ]),
    }))
    .addEdge(START, "tool")
    .addEdge("tool", END)
    .compile({ checkpointer, name: "triage" });
  return { id: "triage", description: "test: an Agent Inbox HumanInterrupt", graph };
}

function nested(checkpointer: Checkpointer, tokenDelayMs: number): Assistant {
  const model = new ScriptedChatModel({ name: "scripted-researcher", responses: [NESTED_TEXT], loop: true, chunking: "word", delayMs: tokenDelayMs });
  const research = new StateGraph({ notes: lastValue<string>(), approved: lastValue<unknown>() })
    .addNode("search", async (_state, runtime) => {
      const reply = await model.invoke([humanMessage("Find similar reports.")], { signal: runtime.signal });
      return { notes: contentText(reply.content) };
    })
    .addNode("ask", () => ({ approved: interrupt<unknown>({ question: "Use these notes?" }) }))
    .addEdge(START, "search")
    .addEdge("search", "ask")
    .addEdge("ask", END)
    .compile({ name: "research" });
  const graph = new StateGraph({
    notes: lastValue<string>(),
    approved: lastValue<unknown>(),
    api_key: lastValue<string>({ private: true }),
    done: lastValue<boolean>(),
  })
    .addNode("prepare", () => ({ api_key: SECRET_VALUE }))
    .addNode("research", research)
    .addNode("publish", (state) => ({ done: state.api_key === SECRET_VALUE }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "research")
    .addEdge("research", "publish")
    .addEdge("publish", END)
    .compile({ checkpointer, name: "nested" });
  return { id: "nested", description: "test: a subgraph that streams and asks; a private channel", graph };
}

/** The demo assistants plus the ones above. */
export function webAssistants(options: { tokenDelayMs?: number } = {}): AssistantFactory {
  const demo = demoAssistants(options);
  return (checkpointer) => [...demo(checkpointer), budget(checkpointer), triage(checkpointer), nested(checkpointer, options.tokenDelayMs ?? 2)];
}
