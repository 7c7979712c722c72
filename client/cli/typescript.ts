/**
 * Loading a user's TypeScript config module (`switchboard.config.ts`) from
 * the compiled CLI: tsx's ESM hooks compile it, and one small hook of ours
 * loads the project's own `.ts` files as ES modules whatever the project's
 * package type. tsx is here only for the user's TypeScript; the library runs
 * as compiled JavaScript.
 *
 * Why the format hook: in a CommonJS project (`npm init -y`), tsx treats
 * `.ts` as CommonJS. Without tsx's CommonJS hooks Node then require()s the
 * file it is already importing ("Cannot require() ES Module … in a cycle");
 * with them, tsx re-compiles every ES module the config imports (this
 * package, yjs, …) into a second, CommonJS copy, so the config's graphs and
 * the hub would not share one engine. As an ES module the config imports the
 * very modules the CLI runs. A config is written with `import`/`export`
 * anyway.
 */
import { register } from "node:module";

/**
 * Resolve hook (runs in Node's loader thread, ahead of tsx's): a `.ts`/`.tsx`
 * file outside node_modules that would load as CommonJS loads as an ES module.
 */
const FORMAT_HOOK = `
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const { url, format } = resolved;
  const own = url.startsWith("file:") && !url.includes("/node_modules/") && /\\.tsx?$/.test(new URL(url).pathname);
  return own && (format === "commonjs" || format === "commonjs-typescript") ? { ...resolved, format: "module" } : resolved;
}
`;

/** Running from the TypeScript sources (tsx, vitest): `.ts` loads already. */
const FROM_SOURCES = import.meta.url.endsWith(".ts");

let enabled: Promise<void> | undefined;

/** Registers tsx and the format hook, once. */
export function enableTypeScript(): Promise<void> {
  enabled ??= (async () => {
    if (FROM_SOURCES) return;
    const tsx = await import("tsx/esm/api");
    tsx.register();
    // Registered after tsx, so it runs first and sees what tsx resolved.
    register(`data:text/javascript,${encodeURIComponent(FORMAT_HOOK)}`);
  })();
  return enabled;
}

/** Whether `path` is TypeScript that needs enableTypeScript() to load. */
export function isTypeScript(path: string): boolean {
  return /\.m?tsx?$/.test(path);
}
