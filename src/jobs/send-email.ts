import { z } from 'zod';
import { ErrorType } from '../shared/errors';
import { schedule } from '../shared/retry';
import { identifier } from '../shared/limits';
import { defineJob } from './definition';

/** Built-in templates a `send-email` job may name instead of a body. */
export const emailTemplateNames = ['welcome', 'password-reset'] as const;

/** Payload of a `send-email` job. */
export const sendEmailPayload = z
  .object({
    /** Recipient address. */
    to: z.email({ error: 'must be a valid email address' }),
    /** Subject line. */
    subject: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(998, 'must be at most 998 characters')
      .regex(/^[^\r\n]*$/, 'must not contain line breaks'),
    /** Plain-text body. Give either `body` or `template`. */
    body: z.string().min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters').optional(),
    /** A built-in template and the values it fills in. Give either `body` or `template`. */
    template: z
      .object({
        name: z.enum(emailTemplateNames),
        vars: z
          .record(z.string().regex(/^\w{1,64}$/, 'must be 1 to 64 letters, digits or _'), z.string().max(2000, 'must be at most 2000 characters'))
          .refine((vars) => Object.keys(vars).length <= 50, 'must have at most 50 entries')
          .default({}),
      })
      .optional(),
    /** The user this email is for; recorded as the `X-User-Id` header. */
    userId: identifier(200),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.body === undefined) === (value.template === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'give exactly one of body or template' });
    }
  });

/** A validated `send-email` payload. */
export type SendEmailPayload = z.infer<typeof sendEmailPayload>;

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
  payload: sendEmailPayload,
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
  summary: (payload) => `send-email to ${payload.to}: ${payload.subject}`.slice(0, 200),
});
