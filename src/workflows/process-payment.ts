import { ActivityFailure, ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PaymentStepInput } from '../activities/payments';
import { jobActivities } from '../workflow';
import { processPaymentJob, type ProcessPaymentPayload, type ProcessPaymentResult } from '../jobs/process-payment';
import { trackJob, type JobState } from '../workflow';
import { Saga } from '../workflow';

const { reserveFunds, capturePayment, releaseHold } = jobActivities<Activities>(processPaymentJob, 'step');
const { reverseCapture, cancelHold } = jobActivities<Activities>(processPaymentJob, 'compensate');

/**
 * Runs one `process-payment` job: reserve, capture, release. When a step fails for good (or the
 * job is cancelled) after an earlier step took effect, the saga undoes those steps newest first and
 * the failure is rethrown. Every step and undo runs once per execution through the ledger.
 */
export async function processPaymentWorkflow(payload: ProcessPaymentPayload): Promise<ProcessPaymentResult> {
  const state = trackJob(processPaymentJob, { progress: { done: 0, total: 3, unit: 'steps' } });
  const saga = new Saga(state);
  const { workflowId, firstExecutionRunId } = workflowInfo();
  const input: PaymentStepInput = { jobId: workflowId, execution: firstExecutionRunId, payload };
  const undo = (run: () => Promise<unknown>) => () => {
    state.preset = 'compensate';
    return run();
  };

  try {
    await runStep(state, saga, 'reserve', () => reserveFunds(input), undo(() => cancelHold(input)));
    const { capturedAt } = await runStep(state, saga, 'capture', () => capturePayment(input), undo(() => reverseCapture(input)));
    await runStep(state, saga, 'release', () => releaseHold(input));
    const { paymentId, fromAccount, toAccount, amount, currency } = payload;
    return { paymentId, fromAccount, toAccount, amount, currency, capturedAt };
  } catch (err) {
    await saga.compensate();
    // The job record reads the attempts limit of the step that failed, not of its undo.
    state.preset = 'step';
    throw err;
  }
}

/**
 * Runs one step and records its undo. The undo is recorded unless the step failed non-retryably:
 * such a failure rolled the step's transaction back, while a step that ran out of attempts or
 * timed out may have committed before Temporal heard back (each undo is a no-op if it had not).
 */
async function runStep<T>(state: JobState, saga: Saga, step: string, run: () => Promise<T>, undo?: () => Promise<unknown>): Promise<T> {
  state.step = step;
  state.preset = 'step';
  try {
    const result = await run();
    if (undo) saga.add(step, undo);
    state.progress = { done: state.steps.indexOf(step) + 1, total: state.steps.length, unit: 'steps' };
    return result;
  } catch (err) {
    if (undo && !rolledBack(err)) saga.add(step, undo);
    throw err;
  }
}

function rolledBack(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable === true;
}
