import { proxyActivities, proxyLocalActivities, workflowInfo, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';
import { presetOf, presetOptions, type JobDefinition } from '../catalog/define-job';
import { dependencyQueue, sharedQueueOf } from '../catalog/dependency';
import { ErrorType } from '../shared/errors';
import { waitingForConfig } from './config-wait';
import { withConcurrencySlot } from './concurrency-slot';
import { withPresetTag } from './preset-tag';

/** A preset's retry policy, with `jobs:missing-config` failing the attempt at once: the job waits for the setting instead (src/workflow-kit/config-wait.ts). */
function withConfigWait(retry: RetryPolicy | undefined): RetryPolicy {
  const nonRetryable = retry?.nonRetryableErrorTypes ?? [];
  return { ...retry, nonRetryableErrorTypes: nonRetryable.includes(ErrorType.MissingConfig) ? nonRetryable : [...nonRetryable, ErrorType.MissingConfig] };
}

/**
 * The local-activity options of a job's named preset: the same retry policy and timeouts, no
 * heartbeat. Every retry waits out its delay in a workflow timer (`localRetryThreshold: 0`), not
 * inside the worker, so each failed attempt leaves its marker in the history: the job record counts
 * a local activity's attempts from them (Temporal keeps no pending record of one), including a job
 * cancelled while it waits to retry.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload; the preset name is checked against the definition's
export function localActivityOptions<P extends string>(definition: JobDefinition<any, string, P>, preset: NoInfer<P> = definition.mainPreset): LocalActivityOptions {
  const { startToCloseTimeout, scheduleToCloseTimeout, retry, cancellationType } = presetOptions(presetOf(definition, preset));
  return withPresetTag({ startToCloseTimeout, scheduleToCloseTimeout, retry, cancellationType, localRetryThreshold: 0 }, preset);
}

/**
 * The activities a job's workflow calls under its named preset: local when the definition declares
 * `activity: 'local'`, regular otherwise. A step that fails on a missing setting
 * (`jobs:missing-config`) costs no attempt: the job waits for it (src/workflow-kit/config-wait.ts).
 * A type with a concurrency limit holds its slot before its first step (concurrency-slot.ts).
 * Workflow code, so it must be called at module load or in the workflow, like `proxyActivities`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload; the preset name is checked against the definition's (a typo is a compile error)
export function jobActivities<A extends object, P extends string = string>(definition: JobDefinition<any, string, P>, preset: NoInfer<P> = definition.mainPreset): ActivityInterfaceFor<A> {
  if (definition.activity === 'local') {
    const options = localActivityOptions(definition, preset);
    return withConcurrencySlot(definition, waitingForConfig(proxyLocalActivities<A>({ ...options, retry: withConfigWait(options.retry) })));
  }
  // Tagged with its preset: the job interceptor tells the activity which schedule it retries on,
  // and the job record which step's attempts to count.
  const declared = presetOf(definition, preset);
  const options: ActivityOptions = withPresetTag(presetOptions(declared), preset);
  // An activity dispatched eagerly (to the worker that ran the workflow task, `npm start`'s
  // tuning) skips the server's matching, and with it the rates the server enforces there.
  if (definition.limits?.ratePerKey !== undefined || definition.queue?.rateLimit !== undefined) options.allowEagerDispatch = false;
  const dependency = declared.dependency;
  if (dependency) return withConcurrencySlot(definition, waitingForConfig(onDependencyQueue<A>({ ...options, retry: withConfigWait(options.retry) }, definition, dependency.name)));
  return withConcurrencySlot(definition, waitingForConfig(proxyActivities<A>({ ...options, retry: withConfigWait(options.retry) })));
}

/**
 * The activities of a preset that names a dependency, scheduled on the dependency's task queue,
 * whose rate its breaker sets (src/workflow-kit/breaker.ts). The queue's name comes from the
 * deployment's, which the job learns from its own queue when a step is called.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload
function onDependencyQueue<A extends object>(options: ActivityOptions, definition: JobDefinition<any>, name: string): ActivityInterfaceFor<A> {
  let calls: Record<string, (...args: unknown[]) => Promise<unknown>> | undefined;
  return new Proxy({} as ActivityInterfaceFor<A>, {
    get(_target, activity) {
      if (typeof activity !== 'string') return undefined;
      return (...args: unknown[]) => {
        calls ??= proxyActivities({ ...options, taskQueue: dependencyQueue(sharedQueueOf(workflowInfo().taskQueue, definition.queue?.name), name) });
        return calls[activity]!(...args);
      };
    },
  });
}
