import type { ApplicationFailure } from '@temporalio/common';
import { ErrorType, describe, nonRetryable, retryable } from '../activity';
import { SendEmailErrorType } from '../jobs/send-email';

/** Socket-level error codes that mean "try again later". */
const transientCodes = new Set([
  'ECONNECTION',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPROTOCOL',
]);

/** Reply codes that refuse a recipient address as such (RFC 5321: 501 syntax, 553 name not allowed). */
const addressReplyCodes = new Set([501, 553]);

interface NodemailerError {
  code?: string;
  responseCode?: number;
  command?: string;
  response?: string;
}

/**
 * Sorts a nodemailer error into a Temporal failure by the SMTP command that failed, then the reply:
 * - the login (`AUTH …`) or the sender (`MAIL FROM`) refused: our configuration is wrong
 *   (`SMTP_URL` credentials, `EMAIL_FROM`), which an operator fixes, so it is retried
 *   (`jobs:smtp-config`) and the jobs go through once it is fixed;
 * - a recipient refused (`RCPT TO`, 5xx): `jobs:invalid-address`, never retried;
 * - the message refused (`DATA`, or any other 5xx): `jobs:smtp-rejected`, never retried;
 * - 4xx replies and network trouble: `jobs:smtp-transient`, retried.
 */
export function classifySmtpError(err: unknown): ApplicationFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as NodemailerError;
  const reply = e.responseCode;
  const command = e.command ?? '';
  if (e.code === 'EAUTH' || command.startsWith('AUTH')) {
    return retryable(SendEmailErrorType.SmtpConfig, `mail server refused the login${reply ? ` (${reply})` : ''}; check the credentials in SMTP_URL: ${describe(err)}`, err);
  }
  if (reply !== undefined && reply >= 500) {
    if (command === 'MAIL FROM' && e.code === 'EENVELOPE') {
      return retryable(SendEmailErrorType.SmtpConfig, `mail server refused the sender (${reply}); check EMAIL_FROM: ${describe(err)}`, err);
    }
    const refusesAddress = e.code === 'EENVELOPE' && (command === 'RCPT TO' || (command === '' && addressReplyCodes.has(reply)));
    if (refusesAddress) return nonRetryable(SendEmailErrorType.InvalidAddress, `mail server refused the recipient (${reply}): ${describe(err)}`, err);
    return nonRetryable(SendEmailErrorType.SmtpRejected, `mail server rejected the message permanently (${reply}): ${describe(err)}`, err);
  }
  if (reply !== undefined && reply >= 400) {
    return retryable(SendEmailErrorType.SmtpTransient, `mail server deferred the message (${reply}): ${describe(err)}`, err);
  }
  if (e.code === 'EENVELOPE') {
    return nonRetryable(SendEmailErrorType.InvalidAddress, `invalid recipient: ${describe(err)}`, err);
  }
  if (e.code !== undefined && transientCodes.has(e.code)) {
    return retryable(SendEmailErrorType.SmtpTransient, `mail server unavailable (${e.code}): ${describe(err)}`, err);
  }
  return retryable(ErrorType.Unexpected, describe(err), err);
}
