// Reading a dependency's breaker and sending it reports and orders, from a worker, jobctl or the
// console. The view is the breaker workflow's memo, read with one describe (no worker needed); a
// report, an order or an attempt's request for admission is an update that starts the breaker if it
// is not running yet.
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { jobProtocolMemo } from '../shared/job-protocol';
import type { BreakerAdmission, BreakerAdmitRequest } from './breaker-admission';
import { neverRan, type BreakerInput, type BreakerOrder, type BreakerReport, type BreakerView } from './breaker-state';
import { breakerId, breakerMemoKey, breakerUpdateNames, breakerWorkflowType } from './dependency';
import type { DependencyPlan } from './dependency-plan';

/** A dependency's breaker as its memo shows it; a breaker that never ran reads closed. */
export async function readBreaker(client: Client, sharedQueue: string, plan: Pick<DependencyPlan, 'name' | 'settings'>): Promise<BreakerView> {
  try {
    const description = await client.workflow.getHandle(breakerId(sharedQueue, plan.name)).describe();
    const view = description.memo?.[breakerMemoKey] as BreakerView | undefined;
    if (description.status.name === 'RUNNING' && view && typeof view.state === 'string') return view;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  return neverRan(plan.name);
}

type PlanOf = Pick<DependencyPlan, 'name' | 'taskQueue' | 'settings'>;

/** How a breaker is started: on the shared queue, once (a running one is used). */
function startOptions(sharedQueue: string, plan: PlanOf) {
  const input: BreakerInput = { dependency: plan.name, taskQueue: plan.taskQueue, settings: plan.settings };
  return { workflowId: breakerId(sharedQueue, plan.name), taskQueue: sharedQueue, args: [input] as [BreakerInput], workflowIdConflictPolicy: 'USE_EXISTING' as const, memo: jobProtocolMemo() };
}

/** Starts a dependency's breaker unless it runs. */
export async function startBreaker(client: Client, sharedQueue: string, plan: PlanOf): Promise<void> {
  await client.workflow.start(breakerWorkflowType, startOptions(sharedQueue, plan));
}

/** Sends a report or an order to a dependency's breaker, starting it if needed; resolves to its view after it. */
export function sendToBreaker(client: Client, sharedQueue: string, plan: PlanOf, message: { report: BreakerReport } | { order: BreakerOrder }, updateId?: string): Promise<BreakerView> {
  const [name, arg] = 'report' in message ? [breakerUpdateNames.report, message.report] : [breakerUpdateNames.force, message.order];
  return updateWithStart<BreakerView>(client, sharedQueue, plan, name, arg, updateId);
}

/** Asks a dependency's breaker to let an attempt begin; resolves once it may, or its wait ran out. */
export function askBreaker(client: Client, sharedQueue: string, plan: PlanOf, request: BreakerAdmitRequest): Promise<BreakerAdmission> {
  return updateWithStart<BreakerAdmission>(client, sharedQueue, plan, breakerUpdateNames.admit, request);
}

/** An update of the breaker, starting it if it never ran; `updateId` (one per order, kept across retries) lets the server apply it once. */
function updateWithStart<R>(client: Client, sharedQueue: string, plan: PlanOf, name: string, arg: unknown, updateId?: string): Promise<R> {
  const start = new WithStartWorkflowOperation(breakerWorkflowType, startOptions(sharedQueue, plan));
  return client.workflow.executeUpdateWithStart<(input: BreakerInput) => Promise<void>, R, [unknown]>(name, { args: [arg], startWorkflowOperation: start, ...(updateId ? { updateId } : {}) });
}
