/**
 * Demo assistant `expense-approval`: a tool-calling agent in the pattern of
 * LangChain's human-in-the-loop middleware. A scripted (deterministic) model
 * reads a customer's claim and proposes two tool calls at once —
 * `issue_refund` and `send_email`; a `human_review` step raises ONE interrupt
 * for both (`action_requests` + `review_configs`), routed per action: the
 * refund to the `finance` queue, where two of rita, sam and tom must approve
 * (a `k_of_n` quorum), the email to the `support` queue. The hub resumes it
 * once with `{ decisions: [...] }`; approved and edited calls run, rejected
 * ones get a tool message saying so, and the model writes the outcome.
 *
 * agent → human_review → tools (the approved calls) → agent → END
 */
import {
  END,
  START,
  ScriptedChatModel,
  StateGraph,
  contentText,
  humanMessage,
  interrupt,
  lastValue,
  messages,
  tool,
  toolMessage,
  toolNode,
  type AIMessage,
  type Checkpointer,
  type Message,
  type ToolCall,
  type ToolMessage,
} from "../../engine/index.ts";
import type { DemoOptions } from "./review.ts";

/** The claim the demo works on unless the input brings its own `messages`. */
export const EXPENSE_CLAIM = "Ada Lovelace (ada@example.com) says order A-1027 arrived broken and asks for her 120 EUR back.";

/** Who may approve the refund, two of them needed; the email goes to anyone in support. */
export const EXPENSE_ROUTING = {
  actions: {
    issue_refund: { queue: "finance", users: ["rita", "sam", "tom"], quorum: { mode: "k_of_n", k: 2 } },
    send_email: { queue: "support" },
  },
} as const;

const REVIEW_CONFIGS = [
  { action_name: "issue_refund", allowed_decisions: ["approve", "reject"] },
  {
    action_name: "send_email",
    allowed_decisions: ["approve", "edit", "reject"],
    args_schema: {
      type: "object",
      required: ["to", "subject", "body"],
      properties: { to: { type: "string", minLength: 3 }, subject: { type: "string", minLength: 1 }, body: { type: "string", minLength: 1 } },
    },
  },
];

const issueRefund = tool(
  ({ order, amount, currency }: { order: string; amount: number; currency: string }) => `Refunded ${amount} ${currency} on order ${order} (refund R-${order})`,
  {
    name: "issue_refund",
    description: "Refund an order to the customer's original payment method",
    schema: { type: "object", properties: { order: { type: "string" }, amount: { type: "number" }, currency: { type: "string" }, reason: { type: "string" } }, required: ["order", "amount", "currency"] },
  },
);

const sendEmail = tool(({ to, subject }: { to: string; subject: string; body: string }) => `Email "${subject}" sent to ${to}`, {
  name: "send_email",
  description: "Send an email to the customer",
  schema: { type: "object", properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } }, required: ["to", "subject", "body"] },
});

const TOOLS = [issueRefund, sendEmail];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The claim's facts, read from its text the same way every time. */
function claimOf(text: string): { email: string; order: string; amount: number; currency: string } {
  return {
    email: /\(([^)\s]+@[^)\s]+)\)/.exec(text)?.[1] ?? "customer@example.com",
    order: /\b[A-Z]-\d+\b/.exec(text)?.[0] ?? "A-0000",
    amount: Number(/(\d+(?:\.\d+)?)\s*EUR/.exec(text)?.[1] ?? "0"),
    currency: "EUR",
  };
}

/** What the model says once the tools have answered: each outcome, in the order it called them. */
function summaryOf(history: readonly Message[]): string {
  const ai = history.findLast((m): m is AIMessage => m.type === "ai");
  const answers = history.filter((m): m is ToolMessage => m.type === "tool");
  const results = (ai?.tool_calls ?? []).flatMap((c) => answers.filter((m) => m.tool_call_id === c.id).slice(-1));
  const lines = results.map((m) => {
    const what = m.name === "issue_refund" ? "Refund" : m.name === "send_email" ? "Email" : (m.name ?? "Tool");
    return m.status === "error" ? `${what}: not done — ${contentText(m.content)}.` : `${what}: ${contentText(m.content)}.`;
  });
  return `Done. ${lines.join(" ")}`;
}

/** The scripted model: tool calls for a new claim; a summary once the tools answered. */
function expenseModel(options: DemoOptions) {
  return new ScriptedChatModel({
    name: "scripted-expense-agent",
    chunking: "word",
    delayMs: options.tokenDelayMs ?? 25,
    responses: (history: readonly Message[]) => {
      const last = history.at(-1);
      if (last?.type === "tool") return summaryOf(history);
      const claim = claimOf(last === undefined ? EXPENSE_CLAIM : contentText(last.content));
      return {
        content: `I will refund order ${claim.order} and tell the customer.`,
        toolCalls: [
          { id: "call_refund", name: "issue_refund", args: { order: claim.order, amount: claim.amount, currency: claim.currency, reason: "arrived broken" } },
          {
            id: "call_email",
            name: "send_email",
            args: { to: claim.email, subject: `Your refund for order ${claim.order}`, body: `We are refunding ${claim.amount} ${claim.currency} for order ${claim.order}. Sorry it arrived broken.` },
          },
        ],
      };
    },
  }).bindTools(TOOLS);
}

interface Decision {
  type: string;
  message?: unknown;
  edited_action?: { name: string; args: Record<string, unknown> };
}

/** The resume value as the middleware expects it: one decision per call, in order. */
function decisionsOf(value: unknown, count: number): Decision[] {
  const decisions = isRecord(value) ? value["decisions"] : undefined;
  if (!Array.isArray(decisions) || decisions.length !== count || !decisions.every((d) => isRecord(d) && typeof d["type"] === "string")) {
    throw new Error(`human_review expects { decisions: [...] } with ${count} decisions, got ${JSON.stringify(value)}`);
  }
  return decisions as Decision[];
}

export function createExpenseApprovalGraph(checkpointer: Checkpointer, options: DemoOptions = {}) {
  const model = expenseModel(options);
  const runTools = toolNode(TOOLS);
  return new StateGraph({
    messages: messages(),
    /** Ids of the calls the reviewers let run (approved or edited). */
    approved: lastValue<string[]>(),
  })
    .addNode("agent", async (state, runtime) => {
      const history = state.messages.length === 0 ? [humanMessage(EXPENSE_CLAIM)] : state.messages;
      const reply = await model.invoke(history, { signal: runtime.signal });
      return { messages: state.messages.length === 0 ? [history[0]!, reply] : [reply] };
    })
    .addNode("human_review", (state) => {
      const ai = state.messages.at(-1) as AIMessage;
      const calls = ai.tool_calls;
      const request = {
        action_requests: calls.map((c) => ({ name: c.name, args: c.args, description: c.name === "issue_refund" ? `Refund ${String(c.args["amount"])} ${String(c.args["currency"])} on order ${String(c.args["order"])}` : `Email ${String(c.args["to"])}: ${String(c.args["subject"])}` })),
        review_configs: REVIEW_CONFIGS.filter((config) => calls.some((c) => c.name === config.action_name)),
        review: EXPENSE_ROUTING,
      };
      const decisions = decisionsOf(interrupt<unknown>(request), calls.length);
      const kept: ToolCall[] = [];
      const approved: string[] = [];
      const rejected: ToolMessage[] = [];
      decisions.forEach((decision, i) => {
        const call = calls[i]!;
        if (decision.type === "approve") {
          kept.push(call);
          approved.push(call.id);
        } else if (decision.type === "edit" && decision.edited_action) {
          kept.push({ ...call, args: decision.edited_action.args });
          approved.push(call.id);
        } else {
          kept.push(call);
          const why = typeof decision.message === "string" && decision.message !== "" ? `rejected by the reviewer: ${decision.message}` : "rejected by the reviewer";
          rejected.push(toolMessage(why, { tool_call_id: call.id, name: call.name, status: "error" }));
        }
      });
      // The AI message (same id: replaced in place) carries the edited args; rejected calls are answered here.
      return { messages: [{ ...ai, tool_calls: kept }, ...rejected], approved };
    })
    .addNode("tools", async (state, runtime) => {
      const ai = state.messages.findLast((m): m is AIMessage => m.type === "ai");
      if (!ai) return {};
      const pending = ai.tool_calls.filter((c) => (state.approved ?? []).includes(c.id));
      return runTools({ messages: [{ ...ai, tool_calls: pending }] }, runtime);
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? "human_review" : END), ["human_review", END])
    .addConditionalEdges("human_review", (state) => ((state.approved ?? []).length > 0 ? "tools" : "agent"), ["tools", "agent"])
    .addEdge("tools", "agent")
    .compile({ checkpointer, name: "expense-approval" });
}
