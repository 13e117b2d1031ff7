import { proxyActivities, proxyLocalActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { LocalActivityOptions } from '@temporalio/common';
import { presetOf, presetOptions, type JobDefinition } from '../catalog/define-job';

/** The local-activity options of a job's named preset: the same retry policy and timeouts, no heartbeat. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload; the preset name is checked against the definition's
export function localActivityOptions<P extends string>(definition: JobDefinition<any, string, P>, preset: NoInfer<P> = definition.mainPreset): LocalActivityOptions {
  const { startToCloseTimeout, scheduleToCloseTimeout, retry, cancellationType } = presetOptions(presetOf(definition, preset));
  return { startToCloseTimeout, scheduleToCloseTimeout, retry, cancellationType };
}

/**
 * The activities a job's workflow calls under its named preset: local when the definition declares
 * `activity: 'local'`, regular otherwise. Workflow code, so it must be called at module load or in
 * the workflow, like `proxyActivities` itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload; the preset name is checked against the definition's (a typo is a compile error)
export function jobActivities<A extends object, P extends string = string>(definition: JobDefinition<any, string, P>, preset: NoInfer<P> = definition.mainPreset): ActivityInterfaceFor<A> {
  if (definition.activity === 'local') return proxyLocalActivities<A>(localActivityOptions(definition, preset));
  return proxyActivities<A>(presetOptions(presetOf(definition, preset)));
}
