// An operator's order to a breaker, sent as one update (one ID across retries, so the server
// applies it once) and retried while the breaker's workflow refuses it for a passing reason: its
// workflow task failed or timed out (a worker stalled past the 10 s task timeout: the server then
// refuses updates until a task succeeds), or its run is handing over to the next.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { sendToBreaker } from '../catalog/breaker-calls';
import type { BreakerOrder, BreakerView } from '../catalog/breaker-state';
import type { DependencyPlan } from '../catalog/dependency-plan';
import { ErrorType, JobsError, describeError } from '../shared/errors';
import { isHandOver } from './dead-letter-calls';

/** How long refusals are retried before the order is reported as not applied, in ms. */
const retryForMs = 60_000;

/** The breaker's workflow refused the order for {@link retryForMs}: nothing was applied. */
export class BreakerBusyError extends JobsError {
  constructor(dependency: string, cause: unknown) {
    super(ErrorType.BreakerBusy, `the breaker of ${dependency} refused the order for ${retryForMs / 1000} s (its workflow task keeps failing or timing out: a worker stalled or overloaded; see its history in the Web UI): nothing was applied; order again once it answers (jobctl breakers): ${describeError(cause)}`, { cause });
  }
}

/** Sends `order` to the breaker of `plan`, retrying passing refusals; resolves to the breaker after it. */
export async function sendOrder(client: Client, sharedQueue: string, plan: Pick<DependencyPlan, 'name' | 'taskQueue' | 'settings'>, order: BreakerOrder): Promise<BreakerView> {
  const updateId = `order-${randomUUID()}`;
  const deadline = Date.now() + retryForMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendToBreaker(client, sharedQueue, plan, { order }, updateId);
    } catch (err) {
      if (!isHandOver(err)) throw err;
      if (Date.now() >= deadline) throw new BreakerBusyError(plan.name, err);
      await sleep(Math.min(2000, 100 * 2 ** (attempt - 1)));
    }
  }
}
