import type { Activities } from '../activities';
import { jobActivities, runJob } from '../workflow-kit';
import { sendEmailJob, type SendEmailPayload, type SendEmailResult } from '../jobs/send-email';

const { sendEmail } = jobActivities<Activities>(sendEmailJob, 'send');

/** Runs one `send-email` job. The workflow ID is the job ID; its log events come from the job interceptor. */
export function sendEmailWorkflow(payload: SendEmailPayload): Promise<SendEmailResult> {
  return runJob(sendEmailJob, (job) => job.step('send', () => sendEmail(payload)));
}
