/**
 * The page's one HubClient (the SDK: every byte to and from the hub goes
 * through it) and the React bindings over its observables: a slice of a
 * thread or queue handle read with useSyncExternalStore, handles subscribed
 * while a view shows them, and the signed-in session.
 */
import { createContext, useContext, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { ConnectionState, HubClient, QueueEvents, QueueHandle, ThreadEvents, ThreadHandle, Unsubscribe } from "../../index.ts";
import type { WhoAmI } from "../../../hub/protocol/index.ts";

export interface Session {
  client: HubClient;
  me: WhoAmI;
  /** Ends the session (back to sign-in); `reason` is shown there. */
  signOut(reason?: string): void;
}

const SessionContext = createContext<Session | null>(null);
export const SessionProvider = SessionContext.Provider;

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in page");
  return session;
}

export function hasRole(me: WhoAmI, role: "observer" | "reviewer" | "operator"): boolean {
  const roles = me.principal.roles;
  return roles.includes(role) || roles.includes("admin");
}

export function useConnectionState(client: HubClient): ConnectionState {
  return useSyncExternalStore(
    (notify) => client.on("state", notify),
    () => client.state,
  );
}

type Source<E> = { on<K extends keyof E>(event: K, listener: (value: E[K]) => void): Unsubscribe };

/** A live slice (`messages`, `interrupts`, …) of a handle; re-renders only when it changes. */
export function useSlice<E, K extends keyof E, V>(handle: Source<E>, event: K, read: () => V): V {
  return useSyncExternalStore((notify) => handle.on(event, notify), read);
}

/** Subscribes a thread while the component is shown (the SDK shares one socket). */
export function useThread(threadId: string): { thread: ThreadHandle; error: Error | null } {
  const { client } = useSession();
  const thread = useMemo(() => client.thread(threadId), [client, threadId]);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    let sub: { unsubscribe(): Promise<void> } | undefined;
    let gone = false;
    setError(null);
    thread
      .subscribe(["lifecycle", "messages", "values", "input", "tasks", "tools"])
      .then((s) => {
        if (gone) void s.unsubscribe().catch(() => undefined);
        else sub = s;
      })
      .catch((e: unknown) => !gone && setError(e instanceof Error ? e : new Error(String(e))));
    return () => {
      gone = true;
      void sub?.unsubscribe().catch(() => undefined);
    };
  }, [thread]);
  return { thread, error };
}

/** A live slice of a thread (`messages`, `interrupts`, `tree`…): the SDK keeps each slice's identity until it changes. */
export function useThreadSlice<K extends keyof ThreadEvents & keyof ThreadHandle>(thread: ThreadHandle, key: K): ThreadHandle[K] {
  return useSyncExternalStore((notify) => thread.on(key, notify), () => thread[key]);
}

export function useQueueItems(queue: QueueHandle) {
  const items = useSlice<QueueEvents, "items", QueueHandle["items"]>(queue, "items", () => queue.items);
  const resolved = useSlice<QueueEvents, "resolved", QueueHandle["resolved"]>(queue, "resolved", () => queue.resolved);
  const presence = useSlice<QueueEvents, "presence", QueueHandle["presence"]>(queue, "presence", () => queue.presence);
  return { items, resolved, presence };
}

/** A ticking clock for ages and countdowns (one interval per component). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * One shared 1 s clock for the texts that age ("3 s ago", "in 2 min"). A
 * component reading it re-renders only when its own text changes, so a list
 * of a thousand rows, most of them minutes old, does not re-render every second.
 */
const clock = { now: Date.now(), listeners: new Set<() => void>(), timer: undefined as ReturnType<typeof setInterval> | undefined };

// Runs for the page's life once started, so a first render never reads a stale time.
function startClock(): void {
  if (clock.timer !== undefined) return;
  clock.now = Date.now();
  clock.timer = setInterval(() => {
    clock.now = Date.now();
    for (const notify of clock.listeners) notify();
  }, 1000);
}

function subscribeClock(listener: () => void): () => void {
  startClock();
  clock.listeners.add(listener);
  return () => clock.listeners.delete(listener);
}

function readClock(): number {
  startClock();
  return clock.now;
}

/** A text computed from the time, kept current by the shared clock; re-renders only when the text changes. */
export function useClockText(text: (now: number) => string): string {
  return useSyncExternalStore(subscribeClock, () => text(readClock()));
}

