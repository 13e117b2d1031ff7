import { log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { activityOptions } from '../jobs/definition';
import { sendEmailJob, type SendEmailPayload, type SendEmailResult } from '../jobs/send-email';

const { sendEmail } = proxyActivities<Activities>(activityOptions(sendEmailJob));

/** Runs one `send-email` job. The workflow ID is the job ID. */
export async function sendEmailWorkflow(payload: SendEmailPayload): Promise<SendEmailResult> {
  const { workflowId, startTime } = workflowInfo();
  const fields = { jobId: workflowId, jobType: sendEmailJob.type };
  log.info('job:start', fields);
  try {
    const result = await sendEmail({ jobId: workflowId, createdAt: startTime.toISOString(), payload });
    log.info('job:completed', { ...fields, messageId: result.messageId, alreadySent: result.alreadySent });
    return result;
  } catch (err) {
    log.error('job:failed', { ...fields, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
}
