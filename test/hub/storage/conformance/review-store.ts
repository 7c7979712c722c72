/**
 * The review store conformance suite: every ReviewStore backend runs these
 * tests from a few-line test file — the store's atomic decisions
 * (conformance-store.ts) and the ReviewService on top of it
 * (conformance-service.ts).
 */
import { afterEach, beforeEach, describe } from "vitest";
import type { ReviewStore } from "../../../../hub/review/index.ts";
import { actionTests } from "./review-store-actions.ts";
import { serviceTests } from "./review-service.ts";
import { storeTests } from "./review-store-decisions.ts";
import { workflowTests } from "./review-store-workflows.ts";
import { timerTests } from "./review-store-timers.ts";

export interface ReviewStoreFixture {
  store: ReviewStore;
  /**
   * Another store instance over the same data — another node on the same
   * database, another connection to the same file, or the store a restarted
   * process opens (memory: the same instance, its data is the process's).
   * Closed by dispose.
   */
  peer(): Promise<ReviewStore>;
  dispose(): Promise<void>;
}

export function describeReviewStoreConformance(name: string, make: () => Promise<ReviewStoreFixture>): void {
  describe(`review store conformance: ${name}`, () => {
    let fixture: ReviewStoreFixture;
    const store = (): ReviewStore => fixture.store;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    describe("store", () => storeTests(store));
    describe("workflows", () => workflowTests(store));
    describe("service", () => serviceTests(store));
    describe("per-action decisions", () => actionTests(store));
    describe("timers", () => timerTests(store, () => fixture.peer()));
  });
}
