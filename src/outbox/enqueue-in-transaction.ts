// An enqueue that is part of the caller's own database transaction: the job is a row of the
// outbox, written with the caller's other rows, and the worker's relay starts it on Temporal once
// the transaction has committed (src/outbox/relay.ts). A rollback leaves no job.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../db/database';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import { prepareJob } from '../catalog/prepare-job';
import { ErrorType, IdConflictError, InvalidOptionError, JobsError, type FieldIssue } from '../shared/errors';
import { payloadHash } from '../shared/payload-hash';
import { outboxRowOf, type OutboxDatabase } from './outbox-row';

/** The channel a PostgreSQL commit notifies the relays on, so that they start its jobs at once. */
export const outboxChannel = 'durable_jobs_outbox';

/**
 * Refuses what the outbox cannot keep: a `db` that is not a transaction (the row would commit on its
 * own, with nothing else), and debounce or dedupe, whose windows order and fold enqueues as they come
 * while the relay starts committed rows several at once, after the commit.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see enqueueInTransaction
function refuseOutsideTransaction(trx: Kysely<any> | undefined, options: { debounce?: unknown; dedupe?: unknown }): void {
  const issues: FieldIssue[] = [];
  if (!trx?.isTransaction) issues.push({ path: 'trx', message: 'must be a transaction on the jobs database (db.transaction().execute((trx) => …)); outside one, use enqueue' });
  for (const window of ['debounce', 'dedupe'] as const) {
    if (options[window] !== undefined) issues.push({ path: window, message: `is not available in a transaction: enqueue the job with ${window} after the commit` });
  }
  if (issues.length > 0) throw new InvalidOptionError(issues);
}

/** A database that no worker of this release has migrated: say what to do instead of the driver's words. */
function noOutboxTable(err: unknown): Error | undefined {
  const message = err instanceof Error ? err.message : String(err);
  if (!/job_outbox/.test(message) || !/no such table|does not exist/.test(message)) return undefined;
  return new JobsError(
    ErrorType.DatabaseConfig,
    'the jobs database has no job_outbox table: enqueue in a transaction on the jobs database the worker uses (DATABASE_URL, or its DATA_DIR/jobs.db), which a worker of this release migrates at start (or migrateToLatest from durable-jobs/worker)',
    { cause: err },
  );
}

/** The transactions that have notified the relays already (PostgreSQL folds repeated notifications anyway; this saves the round trips). */
const notified = new WeakSet<object>();

/** What {@link enqueueInTransaction} wrote. */
export interface OutboxEnqueueResult {
  /** The job ID, decided as `enqueue` decides it. */
  id: string;
  /** True when this transaction's database already holds this job, waiting to start (same ID, type and payload): nothing was written. */
  existed: boolean;
}

/**
 * Validates the job as `enqueue` does and writes it to the outbox in `trx`, the caller's Kysely
 * transaction on the jobs database (PostgreSQL or SQLite). Nothing reaches Temporal until the
 * transaction commits; a rollback leaves no job. A job with this ID already waiting in the outbox
 * is the same job when its type and payload are the same (`existed`), else {@link IdConflictError}.
 * An ID that is taken on Temporal is found by the relay, as `enqueue` finds it.
 */
export async function enqueueInTransaction<S extends PayloadSchemas>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the caller's own tables
  trx: Kysely<any>,
  catalog: Catalog<S>,
  type: string,
  payload: unknown,
  options: Parameters<typeof prepareJob>[3] = {},
): Promise<OutboxEnqueueResult> {
  refuseOutsideTransaction(trx, options);
  const job = prepareJob(catalog, type, payload, options);
  const db = trx as unknown as Kysely<OutboxDatabase>;
  // Written first: on SQLite a transaction that reads before it writes fails (SQLITE_BUSY_SNAPSHOT,
  // not retried) when the relay has written meanwhile; one that writes first waits for the lock.
  const { seq } = await db
    .insertInto('job_outbox')
    .values(outboxRowOf(job, new Date()))
    .returning('seq')
    .executeTakeFirstOrThrow()
    .catch((err: unknown) => {
      throw noOutboxTable(err) ?? err;
    });
  const waiting = await db
    .selectFrom('job_outbox')
    .select(['job_type', 'payload_hash'])
    .where('job_id', '=', job.id)
    .where('relayed_at', 'is', null)
    .where('seq', '<', seq)
    .orderBy('seq')
    .executeTakeFirst();
  if (waiting) {
    await db.deleteFrom('job_outbox').where('seq', '=', seq).execute();
    if (waiting.job_type !== job.definition.type) throw new IdConflictError(job.id, waiting.job_type);
    if (waiting.payload_hash !== payloadHash(job.payload)) throw new IdConflictError(job.id);
    return { id: job.id, existed: true };
  }
  // Delivered when the transaction commits, and not at all if it rolls back; once per transaction.
  if (isPostgres(trx) && !notified.has(trx)) {
    await sql`select pg_notify(${outboxChannel}, '')`.execute(trx);
    notified.add(trx);
  }
  return { id: job.id, existed: false };
}
