// A paced pool for bulk operations: calls started at most `rate` a second and `concurrency` at a
// time, each outcome yielded as soon as its call ends (an operator watching a slow redrive sees
// each entry when it is done, and an interrupted run has named every call it made).
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits so that two calls start at least `1 / rate` seconds apart; returns the start time, or nothing once `signal` is aborted. */
export function pacer(ratePerSecond?: number, signal?: AbortSignal): () => Promise<Date | undefined> {
  let last: number | undefined;
  return async () => {
    if (ratePerSecond && last !== undefined) {
      const wait = last + 1000 / ratePerSecond - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    }
    if (signal?.aborted) return undefined;
    last = Date.now();
    return new Date(last);
  };
}

/**
 * Runs `run` over `items` with at most `concurrency` in flight, each started after `pace` (until
 * it answers nothing: aborted), and yields each outcome as its call ends. `run` reports failures in
 * its outcome, and rejects only to stop the whole operation: then no other call starts, the calls
 * in flight end and are yielded, and the generator throws that rejection (the first, if several).
 */
export async function* pooled<I, O>(items: AsyncIterable<I> | Iterable<I>, concurrency: number, pace: () => Promise<Date | undefined>, run: (item: I, startedAt: Date) => Promise<O>): AsyncGenerator<O> {
  const ended: O[] = [];
  let stop: { err: unknown } | undefined;
  let inFlight = 0;
  let reading = true;
  let consumerGone = false;
  // Whoever waits: the consumer for an outcome, the producer for a free slot.
  let wakeConsumer: (() => void) | undefined;
  let wakeProducer: (() => void) | undefined;
  const settle = () => {
    inFlight -= 1;
    wakeProducer?.();
    wakeConsumer?.();
  };
  const halted = () => stop !== undefined || consumerGone;
  const producer = (async () => {
    try {
      for await (const item of items) {
        while (inFlight >= Math.max(1, concurrency) && !halted()) await new Promise<void>((resolve) => (wakeProducer = resolve));
        // A call that stops the operation stops the starting of others at once.
        const at = halted() ? undefined : await pace();
        if (!at || halted()) break;
        inFlight += 1;
        run(item, at).then(
          (outcome) => ended.push(outcome),
          (err: unknown) => (stop ??= { err }),
        ).finally(settle);
      }
    } catch (err) {
      stop ??= { err };
    } finally {
      reading = false;
      wakeConsumer?.();
    }
  })();
  try {
    for (;;) {
      while (ended.length > 0) yield ended.shift()!;
      if (!reading && inFlight === 0) break;
      await new Promise<void>((resolve) => (wakeConsumer = resolve));
    }
  } finally {
    // The caller stopped reading (or the pool ended): start nothing more.
    consumerGone = true;
    wakeProducer?.();
  }
  await producer;
  if (stop) throw stop.err;
}
