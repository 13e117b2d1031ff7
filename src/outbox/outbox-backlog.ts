// What the outbox holds: the rows waiting for the relay (jobctl stats, the console, the metrics),
// and the pruning of rows the relay settled long enough ago.
import { sql, type Kysely } from 'kysely';
import type { OutboxDatabase } from './outbox-row';

/** The outbox's backlog: jobs committed and not yet started. */
export interface OutboxBacklog {
  /** Rows waiting for a relay. */
  waiting: number;
  /** Of those, rows whose start failed at least once (the server unreachable…): see their `last_error`. */
  failing: number;
  /** When the oldest waiting row was written (ISO 8601), if any. */
  oldestEnqueuedAt?: string;
  /** Its age in seconds at the time of reading (0 without one). */
  oldestAgeSeconds: number;
  /** Rows settled with their ID taken by another job, kept until pruned. */
  conflicts: number;
}

/** Reads the outbox's backlog with one query. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any jobs database that ran the library's migrations
export async function readOutboxBacklog(db: Kysely<any>, now = new Date()): Promise<OutboxBacklog> {
  const outbox = db as Kysely<OutboxDatabase>;
  const row = await outbox
    .selectFrom('job_outbox')
    .select((eb) => [
      sql<number>`count(*) filter (where relayed_at is null)`.as('waiting'),
      sql<number>`count(*) filter (where relayed_at is null and relay_attempts > 0)`.as('failing'),
      sql<number>`count(*) filter (where outcome = 'conflict')`.as('conflicts'),
      eb.fn.min(sql<string>`case when relayed_at is null then enqueued_at end`).as('oldest'),
    ])
    .executeTakeFirstOrThrow();
  const oldest = row.oldest ?? undefined;
  return {
    waiting: Number(row.waiting),
    failing: Number(row.failing),
    conflicts: Number(row.conflicts),
    ...(oldest ? { oldestEnqueuedAt: oldest } : {}),
    oldestAgeSeconds: oldest ? Math.max(0, (now.getTime() - Date.parse(oldest)) / 1000) : 0,
  };
}

/** Deletes the rows settled before `before`; returns how many. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see readOutboxBacklog
export async function pruneOutbox(db: Kysely<any>, before: Date): Promise<number> {
  const deleted = await (db as Kysely<OutboxDatabase>).deleteFrom('job_outbox').where('relayed_at', '<', before.toISOString()).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
