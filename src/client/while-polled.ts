// A call only a worker can answer (an update of the DLQ or of a breaker), waited for as long as a
// worker polls its queue: a busy worker answers late, and a gone one never. The server holds an
// update whose worker is gone and applies it when one polls again, so the caller is told that,
// rather than a timeout that reads as "not done".
import { polledLately } from './queue-pollers';
import type { Client } from '@temporalio/client';

/** How often a call that waits for a worker checks that one still polls the queue, in ms. */
export const pollCheckMs = 20_000;

/** What {@link whilePolled} needs besides the call. */
export interface WhilePolledOptions {
  /** The task queue whose workflow side the worker polls. */
  taskQueue: string;
  /** The error to throw once no worker polls; `cause` is the aborted call's rejection. */
  gone: (cause: unknown) => Error;
  /** Told once, when the call is still waiting at the first check, e.g. to say why it takes long. */
  onWait?: () => void;
}

/**
 * Runs `call` with an abort signal and waits for it as long as a worker polls the queue, checked
 * every {@link pollCheckMs}. Once none has polled lately ({@link polledLately}: 75 s), the call is
 * aborted and `gone` thrown (unless it was answered meanwhile). A failed look at the pollers is no
 * evidence that they are gone: the wait goes on.
 */
export async function whilePolled<T>(client: Client, options: WhilePolledOptions, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const running = call(abort.signal);
  const settled = running.then(() => true as const, () => true as const);
  for (let checks = 0; ; checks++) {
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([settled, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), pollCheckMs)))]);
    clearTimeout(timer);
    if (done) return running;
    if (checks === 0) options.onWait?.();
    const polled = await polledLately(client, options.taskQueue).catch(() => true);
    if (polled) continue;
    abort.abort();
    const err = await running.then(() => undefined, (e: unknown) => e);
    if (err === undefined) return running;
    throw options.gone(err);
  }
}
