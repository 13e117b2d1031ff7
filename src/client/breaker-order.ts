// An operator's order to a breaker, sent as one update (one ID across retries, so the server
// applies it once) and retried while the breaker's workflow refuses it for a passing reason: its
// workflow task failed or timed out (a worker stalled past the 10 s task timeout: the server then
// refuses updates until a task succeeds), or its run is handing over to the next.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { sendToBreaker } from '../catalog/breaker-calls';
import type { BreakerOrder, BreakerView } from '../catalog/breaker-state';
import type { DependencyPlan } from '../catalog/dependency-plan';
import { ErrorType, JobsError, describeError } from '../shared/errors';
import { handOverRetryMs, retryHandOvers } from './dead-letter-calls';

/** The breaker's workflow refused the order for {@link handOverRetryMs}: nothing was applied. */
export class BreakerBusyError extends JobsError {
  constructor(dependency: string, cause: unknown) {
    super(ErrorType.BreakerBusy, `the breaker of ${dependency} refused the order for ${handOverRetryMs / 1000} s (its workflow task keeps failing or timing out: a worker stalled or overloaded; see its history in the Web UI): nothing was applied; order again once it answers (jobctl breakers): ${describeError(cause)}`, { cause });
  }
}

/** Sends `order` to the breaker of `plan`, retrying passing refusals; resolves to the breaker after it. */
export function sendOrder(client: Client, sharedQueue: string, plan: Pick<DependencyPlan, 'name' | 'taskQueue' | 'settings'>, order: BreakerOrder): Promise<BreakerView> {
  const updateId = `order-${randomUUID()}`;
  return retryHandOvers(() => sendToBreaker(client, sharedQueue, plan, { order }, updateId), (err) => new BreakerBusyError(plan.name, err));
}
