import { Context } from '@temporalio/activity';
import { traced } from '../shared/traced';
import { currentJob } from './job-attempt';
import type { Kysely, Transaction } from 'kysely';

/** One step of one job execution that has taken effect; see runOnce. */
export interface LedgerTable {
  /** The job ID (workflow ID). */
  job_id: string;
  /** The job execution: its first run ID, stable across retries and continue-as-new, new per redrive. */
  execution: string;
  /** The step, e.g. `reserve` or `compensate:reserve`. */
  step: string;
  /** The step's result, as JSON, returned again to a repeated attempt. */
  result: string;
  /** When the step took effect (ISO 8601). */
  created_at: string;
}

/** The ledger's table, as Kysely sees it; a catalog's database type includes it. */
export interface LedgerDatabase {
  ledger: LedgerTable;
}

/** Which step of which job execution a ledger row records. */
export interface LedgerKey {
  /** The job ID. */
  jobId: string;
  /** The execution (first run ID): a redriven job starts a new one and so does its steps again. */
  execution: string;
  /** The step, e.g. `reserve`. */
  step: string;
}

/** What {@link runOnce} did. */
export interface OnceResult<T> {
  /** The step's result: this attempt's, or the one recorded by the attempt that committed it. */
  result: T;
  /** True when an earlier attempt had already committed the step, so this one did nothing. */
  replayed: boolean;
}

/**
 * Runs `work` at most once per ledger key: it checks the ledger, does the work and records the
 * step in one transaction. An attempt retried or redelivered after the commit finds the row and
 * returns the recorded result; an attempt that fails (or races another and loses on the primary
 * key) rolls back whole, so no side effect is half-done.
 *
 * Given a step name (`runOnce(db, 'reserve', …)`), the key's job and execution are those of the
 * activity attempt that calls it (see `currentJob`); given a whole {@link LedgerKey}, its own.
 * Cancelled by `signal`, by default the attempt's own cancellation: a cancelled attempt's writes
 * roll back.
 */
export async function runOnce<DB, T>(db: Kysely<DB>, step: string | LedgerKey, work: (trx: Transaction<DB>) => Promise<T>, signal: AbortSignal | undefined = currentCancellation()): Promise<OnceResult<T>> {
  if (!db) throw new TypeError('runOnce needs the jobs database: declare `database` in the worker definition (defineWorker), and pass the `db` its activities factory is given');
  const key = typeof step === 'string' ? ledgerKeyOf(step) : step;
  // The attempt's step (its activity), as on the attempt's span: the key's step may hold data (a
  // page's cursor). Read only when tracing is on.
  const attributes = () => {
    const step = currentActivityType();
    return { 'job.id': key.jobId, ...(step ? { 'job.step': step } : {}) };
  };
  return traced('ledger.transaction', attributes, () => db.transaction().execute(async (trx) => {
    const ledger = trx as unknown as Transaction<LedgerDatabase>;
    signal?.throwIfAborted();
    const done = await recordedResult<T>(ledger, key);
    if (done !== undefined) return { result: done, replayed: true };
    const result = await work(trx);
    // A cancelled attempt (job cancelled, attempt timed out, worker stopping) throws here, before
    // the commit, so its writes roll back whole and the step is left to the retry or the undo.
    signal?.throwIfAborted();
    await ledger
      .insertInto('ledger')
      .values({ job_id: key.jobId, execution: key.execution, step: key.step, result: JSON.stringify(result ?? null), created_at: new Date().toISOString() })
      .execute();
    return { result, replayed: false };
  }));
}

/**
 * The result an earlier attempt recorded for this step, if it committed one. Lets an activity skip
 * work outside the transaction (e.g. a page fetch) when the step is already done.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's tables, the ledger among them
export async function recordedResult<T>(db: Kysely<any> | Transaction<any>, key: LedgerKey): Promise<T | undefined> {
  const row = await (db as unknown as Kysely<LedgerDatabase>)
    .selectFrom('ledger')
    .select('result')
    .where('job_id', '=', key.jobId)
    .where('execution', '=', key.execution)
    .where('step', '=', key.step)
    .executeTakeFirst();
  return row ? (JSON.parse(row.result) as T) : undefined;
}

/** The steps recorded for a job, oldest first (for tests and `jobctl`). */
export async function ledgerSteps<DB>(db: Kysely<DB>, jobId: string): Promise<{ execution: string; step: string }[]> {
  return (db as unknown as Kysely<LedgerDatabase>).selectFrom('ledger').select(['execution', 'step']).where('job_id', '=', jobId).orderBy('created_at').orderBy('step').execute();
}

/** The ledger key of `step` of the job whose activity attempt calls this. */
function ledgerKeyOf(step: string): LedgerKey {
  const { jobId, execution } = currentJob();
  return { jobId, execution, step };
}

/** The cancellation of the activity attempt running this call; none outside an activity. */
function currentCancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/** The activity type of the attempt running this call; none outside an activity. */
function currentActivityType(): string | undefined {
  try {
    return Context.current().info.activityType;
  } catch {
    return undefined;
  }
}
