import { workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { jobActivities } from '../workflow';
import { sendEmailJob, type SendEmailPayload, type SendEmailResult } from '../jobs/send-email';
import { trackJob } from '../workflow';

const { sendEmail } = jobActivities<Activities>(sendEmailJob, 'send');

/** Runs one `send-email` job. The workflow ID is the job ID; its log events come from the job interceptor. */
export async function sendEmailWorkflow(payload: SendEmailPayload): Promise<SendEmailResult> {
  trackJob(sendEmailJob);
  const { workflowId, startTime, firstExecutionRunId } = workflowInfo();
  // The execution keys the ledger's record of a sent message (data only: histories replay unchanged).
  return sendEmail({ jobId: workflowId, createdAt: startTime.toISOString(), payload, execution: firstExecutionRunId });
}
