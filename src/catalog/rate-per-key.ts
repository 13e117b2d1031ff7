import type { JobDefinition } from './define-job';
import type { CatalogProblem } from './preset-problems';
import { shownValue } from '../shared/shown-value';

/**
 * What is wrong with a job type's `limits.ratePerKey`: a rate the Temporal server enforces on the
 * activity tasks of the type's own task queue, so it needs a queue of its own (on the shared queue
 * it would throttle every other type's jobs too) and regular activities (local ones never reach
 * the queue).
 */
export function ratePerKeyProblems(d: JobDefinition, at: string): CatalogProblem[] {
  const rate = d.limits?.ratePerKey;
  if (rate === undefined) return [];
  const path = `${at}.limits.ratePerKey`;
  if (!(typeof rate === 'number' && Number.isFinite(rate) && rate > 0)) return [{ path, message: `must be a number of starts per second per key, more than 0, got ${shownValue(rate)}` }];
  if (!d.queue) return [{ path, message: 'needs a task queue of the job type\'s own (queue: { name }): the server applies the rate to a whole queue\'s fairness keys, and on the shared queue it would limit every other type\'s jobs too' }];
  if (d.activity === 'local') return [{ path, message: "needs regular activities (activity: 'regular'): local activities never reach the task queue the server rate-limits" }];
  return [];
}
