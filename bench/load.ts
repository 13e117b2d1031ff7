import type { Enqueue } from './scenarios';

/** How jobs are offered. */
export interface LoadOptions {
  /** Jobs in all. */
  jobs: number;
  /** Callers enqueueing at once, in the closed-loop mode. @defaultValue 100 */
  concurrency: number;
  /** Offer jobs at this many per second instead (open loop, paced). @defaultValue unset: closed loop */
  rate?: number;
  /** Workflow ID of job `i`. */
  idOf: (i: number) => string;
}

/** Enqueues every job; returns when each enqueue time (ms since the epoch, taken before the call), by workflow ID. */
export async function offerLoad(enqueue: Enqueue, options: LoadOptions): Promise<Map<string, number>> {
  const enqueuedAt = new Map<string, number>();
  const one = async (i: number) => {
    const id = options.idOf(i);
    enqueuedAt.set(id, Date.now());
    await enqueue(id, i);
  };
  if (options.rate !== undefined) {
    const rate = options.rate;
    const start = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < options.jobs; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(one(i));
    }
    await Promise.all(pending);
    return enqueuedAt;
  }
  let next = 0;
  const caller = async () => {
    while (next < options.jobs) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.jobs) }, caller));
  return enqueuedAt;
}
