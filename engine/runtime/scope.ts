/**
 * Which task the running code belongs to, carried across `await` by V8's
 * promise hooks instead of AsyncLocalStorage.
 *
 * On Node 20, AsyncLocalStorage works through an async_hooks init hook, and
 * once one is enabled every async resource in the process pays for it: each
 * socket write's WriteWrap, each nextTick, each timer and I/O request. In the
 * hub that is every frame written to every subscriber (one storage enabled in
 * a bare ws server raised its CPU per delivered event by about 17%).
 * Node code reaches interrupt(), getWriter() and the model and tool observers
 * either synchronously or after `await`s, and an `await` continues in a
 * promise reaction; so tagging promises with the task current when they are
 * created, and entering that task around their reactions, is enough. The rest
 * of the process pays three short calls per promise and nothing for any other
 * async resource.
 *
 * What this does not carry: a callback that is not a promise reaction (a
 * timer, an event emitter fired later, queueMicrotask) runs outside the task,
 * where interrupt() throws InterruptOutsideTaskError and getWriter() gives a
 * no-op. Code there should take what it needs first — `const write =
 * getWriter()`, or the node's `runtime` argument. A chat model's provider
 * stream also runs outside the task (models/base.ts): it has taken its
 * observer when the call starts.
 */
import { promiseHooks } from "node:v8";

const HOST = Symbol("switchboard.task");

interface Tagged {
  [HOST]?: object;
}

let current: object | undefined;
let installed = false;

function install(): void {
  installed = true;
  promiseHooks.createHook({
    // The reactions that continue code are those of promises made by then()
    // and await, which have a parent; tagging only those skips async
    // functions' own promises and `new Promise`s. (A custom thenable's then()
    // runs in a job of a parentless promise, so outside the task; the await
    // continuation after it is back inside.)
    init(promise, parent) {
      if (current !== undefined && parent !== undefined) (promise as Tagged)[HOST] = current;
    },
    before(promise) {
      current = (promise as Tagged)[HOST];
    },
    // Reactions run from the microtask queue on an empty stack, never inside
    // runInScope's synchronous part, so outside one reaction no task is current.
    after() {
      current = undefined;
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

/**
 * Runs `fn` outside any host: promises it creates and awaits carry no task,
 * which saves tagging them. For engine code that has taken what it needs from
 * the task first (a model call's stream observer, say).
 */
export function runOutsideScope<T>(fn: () => T): T {
  const previous = current;
  current = undefined;
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
