/**
 * A thread's data as a whole: deleted with everything of it (checkpoints,
 * records, review items, log), or copied to a new thread.
 */
import type { Principal } from "../../auth/index.ts";
import type { ThreadRecord } from "../../runs/index.ts";
import type { HubServices } from "../../services.ts";

export async function deleteThread(services: HubServices, thread: ThreadRecord): Promise<void> {
  await services.runs.deleteThread(thread, async (threadId) => {
    await services.reviews.forgetThread(thread.tenant, threadId);
  });
}

export async function copyThread(services: HubServices, thread: ThreadRecord, principal: Principal): Promise<ThreadRecord> {
  void principal;
  return services.runs.copyThread(thread, crypto.randomUUID());
}
