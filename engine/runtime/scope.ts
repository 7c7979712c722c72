/**
 * Which task the running code belongs to, carried across `await` by V8's
 * promise hooks instead of AsyncLocalStorage.
 *
 * On Node 20, AsyncLocalStorage works through an async_hooks init hook, and
 * once one is enabled every async resource in the process pays for it: each
 * socket write's WriteWrap, each nextTick, each timer and I/O request. In the
 * hub that is every frame written to every subscriber (about a sixth of the
 * fan-out's CPU, measured with one storage enabled in a bare ws server).
 * Node code reaches interrupt(), getWriter() and the model and tool observers
 * either synchronously or after `await`s, and an `await` continues in a
 * promise reaction; so tagging each promise with the task current when it is
 * created, and entering that task around its reactions, is enough, and costs
 * nothing for the rest of the process.
 *
 * What this does not carry: a callback that is not a promise reaction (a
 * timer, an event emitter fired later, queueMicrotask) runs outside the task.
 * Code there should take what it needs first — `const write = getWriter()`,
 * or the `runtime` argument — as LangGraph recommends where AsyncLocalStorage
 * is unavailable.
 */
import { promiseHooks } from "node:v8";

const HOST = Symbol("switchboard.task");

interface Tagged {
  [HOST]?: object;
}

let current: object | undefined;
/** Tasks entered by `before` hooks, restored by the matching `after`. */
const entered: Array<object | undefined> = [];
let installed = false;

function install(): void {
  installed = true;
  promiseHooks.createHook({
    init(promise) {
      if (current !== undefined) (promise as Tagged)[HOST] = current;
    },
    before(promise) {
      entered.push(current);
      current = (promise as Tagged)[HOST];
    },
    after() {
      current = entered.pop();
    },
  });
}

/** Runs `fn` as `host`'s code: what it calls and awaits finds `host` through {@link currentScope}. */
export function runInScope<T>(host: object, fn: () => T): T {
  // Installed on first use, as AsyncLocalStorage enables its hook on first run().
  if (!installed) install();
  const previous = current;
  current = host;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** The host whose code is running, or undefined outside any. */
export function currentScope(): object | undefined {
  return current;
}
