import { ErrorType } from '../shared/errors';
import { schedule } from '../shared/retry';
import { defineJob } from '../catalog/define-job';
import type { SendEmailPayload } from './payloads/send-email';

export type { SendEmailPayload } from './payloads/send-email';

/** What a `send-email` job returns. */
export interface SendEmailResult {
  /** The Message-ID header, derived from the job ID so that retries reuse it. */
  messageId: string;
  /** `smtp` when sent to a mail server, `outbox` when written as an .eml file. */
  transport: 'smtp' | 'outbox';
  /** Path of the .eml file, for the outbox transport. */
  path?: string;
  /** Whether this attempt found the message already in the outbox and wrote nothing. */
  alreadySent: boolean;
}

/** The `send-email` job type. */
export const sendEmailJob = defineJob({
  type: 'send-email',
  workflowType: 'sendEmailWorkflow',
  description: 'Send one email over SMTP, or to the outbox directory when SMTP_URL is unset',
  // Its own queue, so a flood of slow reports cannot hold the slots emails wait for. A provider's
  // send rate goes here too, e.g. `rateLimit: 10` (emails per second over all workers).
  queue: { name: 'email', concurrency: 20 },
  presets: {
    send: {
      retry: schedule('1s', '5s', '30s', '5m', '30m'),
      nonRetryableErrorTypes: [ErrorType.SmtpRejected, ErrorType.InvalidAddress, ErrorType.InvalidPayload, ErrorType.OutboxUnwritable],
      // The attempt heartbeats while it talks to the server: a cancellation reaches it within about
      // 8s (80% of the timeout) and closes the connection; a dead worker is noticed in 10s.
      timeouts: { startToClose: '30s', scheduleToClose: '2h', heartbeat: '10s' },
    },
  },
  mainPreset: 'send',
  steps: ['send'],
  summary: (payload: SendEmailPayload) => `send-email to ${payload.to}: ${payload.subject}`.slice(0, 200),
});
