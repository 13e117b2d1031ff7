import { ErrorType } from '../workflow-kit';
import { retrySchedule } from '../workflow-kit';
import { defineJob, type JobDependency } from '../workflow-kit';
import { withFormerNames } from './former-error-types';
import type { SendEmailPayload } from './payloads/send-email';

export type { SendEmailPayload } from './payloads/send-email';

/**
 * The `send-email` job type's own error types, in its own namespace (until 0.3 in the library's
 * `jobs:`, {@link withFormerNames}): stored in histories and matched by its presets, so never renamed in place.
 */
export const SendEmailErrorType = {
  /** The mail server answered 4xx or could not be reached: retried. */
  SmtpTransient: 'send-email:smtp-transient',
  /** The mail server answered 5xx: a permanent rejection, never retried. */
  SmtpRejected: 'send-email:smtp-rejected',
  /** The mail server refused our login or our sender: a configuration to fix, so retried until it is. */
  SmtpConfig: 'send-email:smtp-config',
  /**
   * The mail server's TLS certificate failed verification (self-signed, an unknown CA, another host
   * name, expired): a configuration to fix (SMTP_CA_FILE, SMTP_URL's host, the relay's certificate),
   * so retried until it is, like `send-email:smtp-config`.
   */
  SmtpCertificate: 'send-email:smtp-certificate',
  /** The outbox directory cannot be written (permission, read-only, not a directory): never retried. */
  OutboxUnwritable: 'send-email:outbox-unwritable',
  /** A recipient address is malformed or refused as such: never retried. */
  InvalidAddress: 'send-email:invalid-address',
} as const;

/**
 * The mail relay every `send-email` step talks to: its steps run on the `smtp` dependency's queue,
 * and its breaker opens when the relay cannot be reached or answers 4xx (`send-email:smtp-transient`)
 * five times within 30 s; a 5xx rejection of one message is that message's, and never counts.
 */
export const smtpDependency: JobDependency = {
  name: 'smtp',
  concurrency: 20,
  countErrorTypes: withFormerNames([SendEmailErrorType.SmtpTransient]),
};

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
  // Its own queue, so a flood of slow reports cannot hold the slots emails wait for. Its step runs
  // on the smtp dependency's queue: a provider's send rate goes on smtpDependency, e.g. `rate: 10`
  // (emails per second over all workers).
  queue: { name: 'email', concurrency: 20 },
  presets: {
    send: {
      retry: retrySchedule('1s', '5s', '30s', '5m', '30m'),
      nonRetryableErrorTypes: withFormerNames([SendEmailErrorType.SmtpRejected, SendEmailErrorType.InvalidAddress, ErrorType.InvalidPayload, SendEmailErrorType.OutboxUnwritable]),
      // The attempt heartbeats while it talks to the server: a cancellation reaches it within about
      // 8s (80% of the timeout) and closes the connection; a dead worker is noticed in 10s.
      timeouts: { startToClose: '30s', scheduleToClose: '2h', heartbeat: '10s' },
      dependency: smtpDependency,
    },
  },
  mainPreset: 'send',
  steps: ['send'],
  summary: (payload: SendEmailPayload) => `send-email to ${payload.to}: ${payload.subject}`.slice(0, 200),
  // Shared fairly between recipient domains: a bulk send to one domain does not hold back the
  // others' mail. An address is ASCII; a domain over Temporal's 64 bytes keeps its last 64.
  fairness: (payload: SendEmailPayload) => ({ key: payload.to.slice(payload.to.lastIndexOf('@') + 1).toLowerCase().slice(-64) }),
});
