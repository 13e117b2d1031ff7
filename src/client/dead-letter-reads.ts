// Reads of the DLQ shards of one or more job types, merged into one order. Each shard's state is
// folded from its workflow's history (dead-letter-history.ts), which the server keeps whatever
// runs: a read needs no worker, so the DLQ can be read while every worker is down.
import type { Client } from '@temporalio/client';
import { deadLetterWorkflowIds } from '../catalog/dead-letter-shards';
import { InvalidOptionError } from '../shared/errors';
import { compareEntries, countEntries, groupEntries, selectEntries, type DeadLetterEntry, type DeadLetterFilter, type DeadLetterGroup, type DeadLetterStatus } from '../workflow-kit/dead-letter-entries';
import type { DeadLetterPosition } from '../workflow-kit/dead-letter-pages';
import { readDeadLetterState } from './dead-letter-history';

/** An entry and the DLQ workflow that holds it (where its redrive or discard goes). */
export interface LocatedEntry {
  entry: DeadLetterEntry;
  workflowId: string;
}

/** Options of {@link readEntries}. */
export interface ReadEntriesOptions {
  /** Start after this entry. @defaultValue the first */
  after?: DeadLetterPosition;
}

/**
 * Every entry the filter selects in the DLQ workflows `workflowIds` (see `deadLetterWorkflowIds`),
 * oldest failure first: the shards are read side by side, then merged.
 */
export async function* readEntries(client: Client, workflowIds: string[], filter: DeadLetterFilter, options: ReadEntriesOptions = {}): AsyncGenerator<LocatedEntry> {
  const { after } = options;
  const sources = await Promise.all(
    workflowIds.map(async (workflowId) => {
      const state = await readDeadLetterState(client, workflowId);
      const entries = state ? selectEntries(state, filter).filter((e) => !after || compareEntries(e, after) > 0) : [];
      return { workflowId, entries, next: 0 };
    }),
  );
  for (;;) {
    let source: (typeof sources)[number] | undefined;
    for (const s of sources) if (s.next < s.entries.length && (!source || compareEntries(s.entries[s.next]!, source.entries[source.next]!) < 0)) source = s;
    if (!source) return;
    yield { entry: source.entries[source.next++]!, workflowId: source.workflowId };
  }
}

/** Dead-lettered entries counted per fingerprint in the DLQs of `types`, summed over shards, largest first. */
export async function readGroups(client: Client, taskQueue: string, types: string[]): Promise<(DeadLetterGroup & { type: string })[]> {
  const groups = new Map<string, DeadLetterGroup & { type: string }>();
  await Promise.all(
    types.flatMap((type) =>
      deadLetterWorkflowIds(taskQueue, type).map(async (workflowId) => {
        const state = await readDeadLetterState(client, workflowId);
        for (const g of state ? groupEntries(state) : []) {
          const key = `${type}\u0000${g.fingerprint}`;
          const seen = groups.get(key);
          if (!seen) groups.set(key, { ...g, type });
          else {
            seen.count += g.count;
            if (g.firstFailedAt && (!seen.firstFailedAt || g.firstFailedAt < seen.firstFailedAt)) seen.firstFailedAt = g.firstFailedAt;
            if (g.lastFailedAt > seen.lastFailedAt) Object.assign(seen, { lastFailedAt: g.lastFailedAt, sample: g.sample, exampleId: g.exampleId });
          }
        }
      }),
    ),
  );
  return [...groups.values()].sort((a, b) => b.count - a.count || (a.fingerprint < b.fingerprint ? -1 : 1));
}

/** Entries counted by status in the DLQs of one type, summed over shards. */
export async function readCounts(client: Client, taskQueue: string, type: string): Promise<Record<DeadLetterStatus, number>> {
  const total: Record<DeadLetterStatus, number> = { 'dead-lettered': 0, redriving: 0, redriven: 0, discarded: 0 };
  const states = await Promise.all(deadLetterWorkflowIds(taskQueue, type).map((workflowId) => readDeadLetterState(client, workflowId)));
  for (const state of states) {
    if (!state) continue;
    const counts = countEntries(state);
    for (const status of Object.keys(total) as DeadLetterStatus[]) total[status] += counts[status];
  }
  return total;
}

/** A page position as the opaque cursor `jobctl dlq list --cursor` and the console pass back. */
export function encodeCursor(position: DeadLetterPosition): string {
  return Buffer.from(JSON.stringify([position.lastFailedAt, position.id])).toString('base64url');
}

/** The position a cursor names; a malformed one is refused naming the cursor. */
export function decodeCursor(cursor: string): DeadLetterPosition {
  try {
    const [lastFailedAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof lastFailedAt === 'string' && typeof id === 'string') return { lastFailedAt, id };
  } catch {
    // Named below.
  }
  throw new InvalidOptionError([{ path: 'cursor', message: `"${cursor.slice(0, 40)}" is not a cursor a DLQ list returned` }]);
}
