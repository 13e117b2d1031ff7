import { Context } from '@temporalio/activity';
import { classifyDatabaseError } from '../db/database-errors';
import { describeError } from '../shared/errors';

/** Waits between tries within one attempt while the database is unavailable, in ms: 1s, 2s, 4s, then every 5s. */
export const outageWaitsMs: readonly number[] = [1000, 2000, 4000, 5000];

/** Time an attempt keeps for itself after the last try of {@link rideOutDatabaseOutage}, in ms. */
const marginMs = 10_000;

/** Options of {@link rideOutDatabaseOutage}. */
export interface RideOutOptions {
  /**
   * Longest time, in ms, spent within this attempt trying again while the database is unavailable.
   * @defaultValue the attempt's start-to-close timeout less 10s (20s for a 30s step), at most 60s
   */
  budgetMs?: number;
}

/**
 * Runs `work`, trying it again within this attempt while it fails with a database error of kind
 * `unavailable` (see classifyDatabaseError), for up to the budget; then the last error is thrown
 * and the step's retry schedule takes over. So a restart or a failover of seconds costs no
 * attempt, and an outage of minutes costs a few, on the schedule the step declares.
 *
 * `work` must be safe to run again after an error: a `runOnce` step is (its transaction rolled
 * back whole, or committed and recorded, which the next try finds in the ledger). Cancellation
 * (the job cancelled, the worker stopping) ends the wait at once.
 */
export async function rideOutDatabaseOutage<T>(work: () => Promise<T>, options: RideOutOptions = {}): Promise<T> {
  const ctx = Context.current();
  const budgetMs = options.budgetMs ?? Math.max(0, Math.min(ctx.info.startToCloseTimeoutMs - marginMs, 60_000));
  const started = Date.now();
  for (let tries = 0; ; tries++) {
    try {
      return await work();
    } catch (err) {
      const found = classifyDatabaseError(err);
      const waitMs = outageWaitsMs[Math.min(tries, outageWaitsMs.length - 1)]!;
      if (found?.kind !== 'unavailable' || Date.now() - started + waitMs > budgetMs || ctx.cancellationSignal.aborted) throw err;
      ctx.log[tries === 0 ? 'warn' : 'debug']('job:database-unavailable', { code: found.code, waitMs, tries: tries + 1, error: describeError(err) });
      await ctx.sleep(waitMs);
    }
  }
}
