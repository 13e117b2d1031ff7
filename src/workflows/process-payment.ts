import type { Activities } from '../activities';
import { runJob } from '../workflow-kit';
import { processPaymentJob, type ProcessPaymentPayload, type ProcessPaymentResult } from '../jobs/process-payment';

/**
 * Runs one `process-payment` job: reserve, capture, release. When a step fails for good (or the
 * job is cancelled) after an earlier step took effect, the undos run newest first and the failure
 * goes on to the DLQ. Every step and undo runs once per execution through the ledger.
 */
export function processPaymentWorkflow(payload: ProcessPaymentPayload): Promise<ProcessPaymentResult> {
  return runJob(processPaymentJob, async (job) => {
    const { reserveFunds, capturePayment, releaseHold } = job.activities<Activities>('step');
    const { reverseCapture, cancelHold } = job.activities<Activities>('compensate');
    await job.step('reserve', () => reserveFunds(payload), { undo: () => cancelHold(payload) });
    const { capturedAt } = await job.step('capture', () => capturePayment(payload), { undo: () => reverseCapture(payload) });
    await job.step('release', () => releaseHold(payload));
    const { paymentId, fromAccount, toAccount, amount, currency } = payload;
    return { paymentId, fromAccount, toAccount, amount, currency, capturedAt };
  });
}
