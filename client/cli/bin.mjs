#!/usr/bin/env node
// The `switchboard` bin: registers tsx's ESM loader, then runs the TypeScript CLI.
import { register } from "tsx/esm/api";

register();
const { runProcess } = await import("./main.ts");
await runProcess();
