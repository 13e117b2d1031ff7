import type { Client } from '@temporalio/client';
import { DeadLetterQueue } from '../../src/client/dead-letters';
import { catalog } from '../../src/jobs/catalog';
import type { DeadLetterEntry } from '../../src/workflow-kit/dead-letter-entries';

/**
 * The dead-lettered entries of a job type's DLQ. The hand-off is an activity that runs after the
 * job's own failure is decided, so this polls briefly until `expected` entries are there.
 */
export async function deadLetterEntries(client: Client, taskQueue: string, type: string, expected = 1, timeoutMs = 10_000): Promise<DeadLetterEntry[]> {
  const dlq = new DeadLetterQueue(client, taskQueue, catalog);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entries = await dlq.list({ type });
    if (entries.length >= expected || Date.now() > deadline) return entries;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `read` until `done` holds or time runs out, and returns the last value read. */
export async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
