// Reads of the DLQ shards of one or more job types, merged into one order with bounded memory: each
// shard is read a page at a time, and only the head of each is held. Pages are what a query result
// can carry (Temporal caps one at 2 MB), whatever the number of entries.
import type { Client } from '@temporalio/client';
import { deadLetterWorkflowIds } from '../catalog/dead-letter-shards';
import { InvalidOptionError } from '../shared/errors';
import {
  deadLetterCountsQuery,
  deadLetterEntriesQuery,
  deadLetterGroupPageQuery,
  deadLetterGroupsQuery,
  deadLetterPageQuery,
} from '../workflow/dead-letter';
import { compareEntries, type DeadLetterEntry, type DeadLetterFilter, type DeadLetterGroup, type DeadLetterStatus } from '../workflow/dead-letter-entries';
import type { DeadLetterGroupPage, DeadLetterPage, DeadLetterPosition } from '../workflow/dead-letter-pages';
import { callDeadLetterWorkflow, isMissingWorkflow } from './dead-letter-calls';

/** An entry and the DLQ workflow that holds it (where its redrive or discard goes). */
export interface LocatedEntry {
  entry: DeadLetterEntry;
  workflowId: string;
}

/** A worker from before 0.3 knows no page queries: its answer names the query type as unknown. */
function isUnknownQuery(err: unknown): boolean {
  return err instanceof Error && /unknown query ?type|QueryNotRegistered/i.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`);
}

/** One page of one DLQ workflow; an unstarted one holds nothing. */
async function readPage(client: Client, workflowId: string, filter: DeadLetterFilter, after: DeadLetterPosition | undefined, limit: number): Promise<DeadLetterPage> {
  try {
    return await callDeadLetterWorkflow(client, workflowId, (h) => h.query(deadLetterPageQuery, { filter, after, limit }));
  } catch (err) {
    if (isMissingWorkflow(err)) return { entries: [], more: false };
    if (!isUnknownQuery(err)) throw err;
    const all = await callDeadLetterWorkflow(client, workflowId, (h) => h.query(deadLetterEntriesQuery, filter));
    const rest = after ? all.filter((e) => compareEntries(e, after) > 0) : all;
    return { entries: rest.slice(0, limit), more: rest.length > limit };
  }
}

interface Source {
  workflowId: string;
  buffer: DeadLetterEntry[];
  more: boolean;
  after?: DeadLetterPosition;
}

/** Options of {@link readEntries}. */
export interface ReadEntriesOptions {
  /** Start after this entry. @defaultValue the first */
  after?: DeadLetterPosition;
  /** Entries read from one shard per query. @defaultValue 200 */
  chunk?: number;
}

/**
 * Every entry the filter selects in the DLQ workflows `workflowIds` (see `deadLetterWorkflowIds`),
 * oldest failure first, as a stream: one query per workflow per chunk, at most one chunk of each in memory.
 */
export async function* readEntries(client: Client, workflowIds: string[], filter: DeadLetterFilter, options: ReadEntriesOptions = {}): AsyncGenerator<LocatedEntry> {
  const chunk = options.chunk ?? 200;
  const sources: Source[] = workflowIds.map((workflowId) => ({ workflowId, buffer: [], more: true, after: options.after }));
  for (;;) {
    await Promise.all(
      sources
        .filter((s) => s.buffer.length === 0 && s.more)
        .map(async (s) => {
          const page = await readPage(client, s.workflowId, filter, s.after, chunk);
          s.buffer = page.entries;
          s.more = page.more && page.entries.length > 0;
          const last = page.entries.at(-1);
          if (last) s.after = { lastFailedAt: last.lastFailedAt, id: last.id };
        }),
    );
    let next: Source | undefined;
    for (const s of sources) if (s.buffer.length > 0 && (!next || compareEntries(s.buffer[0]!, next.buffer[0]!) < 0)) next = s;
    if (!next) return;
    yield { entry: next.buffer.shift()!, workflowId: next.workflowId };
  }
}

/** Dead-lettered entries counted per fingerprint in the DLQs of `types`, summed over shards, largest first. */
export async function readGroups(client: Client, taskQueue: string, types: string[]): Promise<(DeadLetterGroup & { type: string })[]> {
  const groups = new Map<string, DeadLetterGroup & { type: string }>();
  await Promise.all(
    types.flatMap((type) =>
      deadLetterWorkflowIds(taskQueue, type).map(async (workflowId) => {
        for await (const g of readGroupPages(client, workflowId)) {
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

async function* readGroupPages(client: Client, workflowId: string): AsyncGenerator<DeadLetterGroup> {
  let after: string | undefined;
  for (;;) {
    let page: DeadLetterGroupPage;
    try {
      page = await callDeadLetterWorkflow(client, workflowId, (h) => h.query(deadLetterGroupPageQuery, { after, limit: 500 }));
    } catch (err) {
      if (isMissingWorkflow(err)) return;
      if (!isUnknownQuery(err)) throw err;
      yield* await callDeadLetterWorkflow(client, workflowId, (h) => h.query(deadLetterGroupsQuery));
      return;
    }
    yield* page.groups;
    const last = page.groups.at(-1);
    if (!page.more || !last) return;
    after = last.fingerprint;
  }
}

/** Entries counted by status in the DLQs of one type, summed over shards. */
export async function readCounts(client: Client, taskQueue: string, type: string): Promise<Record<DeadLetterStatus, number>> {
  const total: Record<DeadLetterStatus, number> = { 'dead-lettered': 0, redriving: 0, redriven: 0, discarded: 0 };
  const counts = await Promise.all(
    deadLetterWorkflowIds(taskQueue, type).map((workflowId) =>
      callDeadLetterWorkflow(client, workflowId, (h) => h.query(deadLetterCountsQuery)).catch((err: unknown) => {
        if (isMissingWorkflow(err)) return undefined;
        throw err;
      }),
    ),
  );
  for (const c of counts) if (c) for (const status of Object.keys(total) as DeadLetterStatus[]) total[status] += c[status] ?? 0;
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
