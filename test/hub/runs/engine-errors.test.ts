/**
 * Engine errors on the wire: every engine code has a decided wire code (the
 * map is exhaustive by type; this checks it holds at run time too), and the
 * ones a client causes are not `unknown_error`.
 */
import { describe, expect, it } from "vitest";
import { ENGINE_ERROR_CODES, PendingInterruptsError, UnknownInterruptError } from "../../../engine/index.ts";
import { ENGINE_TO_WIRE, toSwitchboardError } from "../../../hub/runs/answers.ts";
import { isErrorCode } from "../../../hub/protocol/index.ts";

describe("engine → wire errors", () => {
  it("maps every engine error code to a wire code", () => {
    expect(Object.keys(ENGINE_TO_WIRE).sort()).toEqual(Object.values(ENGINE_ERROR_CODES).sort());
    for (const code of Object.values(ENGINE_TO_WIRE)) expect(isErrorCode(code)).toBe(true);
  });

  it("new input while questions are open is the client's to fix: invalid_argument naming them", () => {
    const e = toSwitchboardError(new PendingInterruptsError(["i1", "i2"]));
    expect({ code: e.code, details: e.details }).toEqual({ code: "invalid_argument", details: { pending: ["i1", "i2"] } });
    expect(toSwitchboardError(new UnknownInterruptError("x", ["i1"]))).toMatchObject({ code: "no_such_interrupt", details: { interrupt_id: "x", pending: ["i1"] } });
  });
});
