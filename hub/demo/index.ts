/** The demo assistants that `npm start` serves (deterministic, no network). */
import type { Checkpointer } from "../../engine/index.ts";
import type { Assistant, AssistantFactory } from "../runs/assistants.ts";
import { createExpenseApprovalGraph } from "./expense-approval.ts";
import { createParallelReviewGraph } from "./parallel-review.ts";
import { createReviewGraph, type DemoOptions } from "./review.ts";

export { REVIEW_DRAFT, createReviewGraph, type DemoOptions } from "./review.ts";
export { createParallelReviewGraph, type ReviewAnswer } from "./parallel-review.ts";
export { EXPENSE_CLAIM, EXPENSE_ROUTING, createExpenseApprovalGraph } from "./expense-approval.ts";

export function demoAssistants(options: DemoOptions = {}): AssistantFactory {
  return (checkpointer: Checkpointer): Assistant[] => [
    {
      id: "review",
      description: "Drafts a note with a scripted model, asks a reviewer, then finalizes the decision.",
      graph: createReviewGraph(checkpointer, options),
    },
    {
      id: "parallel-review",
      description: "Asks three reviewers in parallel and joins their answers.",
      graph: createParallelReviewGraph(checkpointer),
    },
    {
      id: "expense-approval",
      description: "A tool-calling agent proposes a refund and an email in one interrupt: finance (two of rita, sam, tom) and support decide each; approved calls run.",
      graph: createExpenseApprovalGraph(checkpointer, options),
    },
  ];
}
