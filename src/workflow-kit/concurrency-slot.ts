// A limited job's side of its concurrency slot: before its first step it asks the limiter of its
// type and key for a slot and waits, attempt-free, until it is granted; when the job closes (not
// when it continues as new) it gives the slot back. See concurrency-limiter.ts.
import { CancellationScope, condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ConcurrencyLimitActivities } from '../activity-kit/concurrency-limit';
import { concurrencyKeyMemoKey } from '../catalog/concurrency-limit';
import type { JobDefinition } from '../catalog/define-job';
import type { JobLimits } from '../catalog/job-limits';
import { currentJobState } from './job-state';
import { slotGrantedSignal } from '../catalog/concurrency-signals';
import { libraryActivities } from './library-activity-calls';
import { RunLocal } from './run-local';

const { requestConcurrencySlot, releaseConcurrencySlot: giveSlotBack } = libraryActivities<ConcurrencyLimitActivities>({
  startToCloseTimeout: '30s',
  // Until Temporal answers: the job waits for its slot either way.
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/** This run's slot: asked for (the limiter's ID), then granted. */
const runSlot = new RunLocal<{ limiterId: string; granted: boolean }>('concurrencySlot');

/** The patch under which a limited job asks for its slot: a type that gains a limit keeps its running jobs' histories. */
const slotPatch = 'concurrency-slot';

/**
 * Waits until this job holds a slot of its type's concurrency limit, if the type declares one
 * (the key came with the job's start, in its memo). Called before every step; only the first call
 * of a run asks. While it waits the job's state says so (`limitWait`).
 */
export async function holdConcurrencySlot(definition: JobDefinition): Promise<void> {
  let slot = runSlot.get();
  if (slot?.granted) return;
  const limit = (definition.limits as JobLimits | undefined)?.concurrencyPerKey;
  const key = workflowInfo().memo?.[concurrencyKeyMemoKey];
  if (limit === undefined || typeof key !== 'string') return;
  if (!slot) {
    if (!patched(slotPatch)) return;
    const requested = { limiterId: '', granted: false };
    slot = requested;
    runSlot.set(requested);
    setHandler(slotGrantedSignal, () => void (requested.granted = true));
    const state = currentJobState();
    if (state) state.limitWait = { key, limit, since: new Date().toISOString() };
    const info = workflowInfo();
    requested.limiterId = await requestConcurrencySlot({ jobType: definition.type, key, limit, jobId: info.workflowId, priority: info.priority?.priorityKey ?? 3 });
  }
  const held = slot;
  await condition(() => held.granted);
  const state = currentJobState();
  if (state) delete state.limitWait;
}

/**
 * Gives the slot back when the job closes: completed, failed (after its hand-off to the DLQ) or
 * cancelled. Not on continue-as-new, whose next run keeps it. A limiter that is gone has closed, and
 * with it the slot; the limiter's holder check frees a slot whose release never came.
 */
export async function releaseConcurrencySlot(): Promise<void> {
  const held = runSlot.get();
  if (!held?.limiterId) return;
  runSlot.set(undefined);
  await CancellationScope.nonCancellable(() => giveSlotBack({ limiterId: held.limiterId, jobId: workflowInfo().workflowId }));
}

/** Wraps each function of an activity proxy so that it first holds the job's slot; a type without a concurrency limit gets the proxy as it is. */
export function withConcurrencySlot<A extends object>(definition: JobDefinition, activities: A): A {
  if ((definition.limits as JobLimits | undefined)?.concurrencyPerKey === undefined) return activities;
  return new Proxy(activities, {
    get(target, name, receiver) {
      const fn: unknown = Reflect.get(target, name, receiver);
      if (typeof fn !== 'function') return fn;
      return async (...args: unknown[]) => {
        await holdConcurrencySlot(definition);
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      };
    },
  });
}
