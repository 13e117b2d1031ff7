import type { Client } from '@temporalio/client';
import { concurrencyLimiterId, concurrencyLimiterWorkflowType } from '../catalog/concurrency-limit';
import { limiterMemoKey, type LimiterState } from '../catalog/concurrency-signals';
import { quoteQueryValue } from './job-list';

/** One job type's concurrency limit as `jobctl stats` shows it: summed over its keys' limiters. */
export interface LimitedType {
  type: string;
  /** Jobs that may run at once per key. */
  limit: number;
  /** Keys with a job running or waiting. */
  keys: number;
  /** Jobs holding a slot. */
  running: number;
  /** Jobs waiting for a slot: held by the limit, which is not backlog. */
  waiting: number;
  /** When the longest-waiting job asked for its slot (ISO 8601). */
  oldestWaitingSince?: string;
}

/**
 * Reads every open limiter of the deployment (one per job type and key) from visibility and sums
 * their memos per type: what waits because of a limit. Eventually consistent, like the other counts.
 */
export async function limitedTypes(client: Client, taskQueue: string): Promise<LimitedType[]> {
  const prefix = concurrencyLimiterId(taskQueue, '', '').slice(0, -2);
  const query = `WorkflowType = ${quoteQueryValue(concurrencyLimiterWorkflowType)} AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH ${quoteQueryValue(`${prefix}:`)}`;
  const byType = new Map<string, LimitedType>();
  for await (const limiter of client.workflow.list({ query })) {
    const state = limiter.memo?.[limiterMemoKey] as LimiterState | undefined;
    if (!state) continue;
    const row = byType.get(state.jobType) ?? { type: state.jobType, limit: state.limit, keys: 0, running: 0, waiting: 0 };
    row.limit = state.limit;
    row.keys += state.running + state.waiting > 0 ? 1 : 0;
    row.running += state.running;
    row.waiting += state.waiting;
    if (state.oldestWaitingSince && (!row.oldestWaitingSince || state.oldestWaitingSince < row.oldestWaitingSince)) row.oldestWaitingSince = state.oldestWaitingSince;
    byType.set(state.jobType, row);
  }
  return [...byType.values()].sort((a, b) => a.type.localeCompare(b.type));
}
