// The library's workflows call its activities through here: by the namespaced name under protocol 2
// and later, by the bare name in a workflow started before (its history names those). The protocol
// is read from the workflow's start memo at each call, so the choice is the same on every replay.
import { makeContinueAsNewFunc, proxyActivities, workflowInfo, type ActivityInterfaceFor, type ActivityOptions, type ContinueAsNewOptions, type Workflow } from '@temporalio/workflow';
import { jobProtocolMemo, jobProtocolOf } from '../shared/job-protocol';
import { namespacedActivityType } from '../shared/library-activities';

type AnyActivity = (...args: unknown[]) => Promise<unknown>;

/** `proxyActivities` for the library's own activities: each called by the name its workflow's protocol gives it. */
export function libraryActivities<A extends object>(options: ActivityOptions): ActivityInterfaceFor<A> {
  const calls = proxyActivities<Record<string, AnyActivity>>(options);
  return new Proxy({} as ActivityInterfaceFor<A>, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      return (...args: unknown[]) => calls[libraryActivityType(name)]!(...args);
    },
  });
}

/** The activity type this workflow calls a library activity by. */
export function libraryActivityType(name: string): string {
  return jobProtocolOf(workflowInfo().memo) >= 2 ? namespacedActivityType(name) : name;
}

/**
 * Continues a library workflow as new under this release's protocol: its next run is a new history,
 * so a long-lived DLQ or limiter started by an earlier release takes the namespaced names there.
 */
export function continueAsNewUnderCurrentProtocol<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  return continueAsNewUnderCurrentProtocolWith<F>({})(...args);
}

/** {@link continueAsNewUnderCurrentProtocol} with options of the next run, e.g. its workflow task timeout. */
export function continueAsNewUnderCurrentProtocolWith<F extends Workflow>(options: Omit<ContinueAsNewOptions, 'memo'>): (...args: Parameters<F>) => Promise<never> {
  return makeContinueAsNewFunc<F>({ ...options, memo: { ...workflowInfo().memo, ...jobProtocolMemo() } });
}
