import type { ApplicationFailure } from '@temporalio/common';
import { ErrorType, describe, nonRetryable, retryable } from '../shared/errors';

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
 * Sorts a nodemailer error into a Temporal failure: 4xx replies and network trouble are retryable
 * (`jobs:smtp-transient`); 5xx replies are permanent (`jobs:smtp-rejected`, or
 * `jobs:invalid-address` when the server refuses the address itself).
 */
export function classifySmtpError(err: unknown): ApplicationFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as NodemailerError;
  const reply = e.responseCode;
  if (reply !== undefined && reply >= 500) {
    const refusesAddress = e.code === 'EENVELOPE' && addressReplyCodes.has(reply);
    const type = refusesAddress ? ErrorType.InvalidAddress : ErrorType.SmtpRejected;
    return nonRetryable(type, `mail server rejected the message permanently (${reply}): ${describe(err)}`, err);
  }
  if (reply !== undefined && reply >= 400) {
    return retryable(ErrorType.SmtpTransient, `mail server deferred the message (${reply}): ${describe(err)}`, err);
  }
  if (e.code === 'EENVELOPE') {
    return nonRetryable(ErrorType.InvalidAddress, `invalid recipient: ${describe(err)}`, err);
  }
  if (e.code !== undefined && transientCodes.has(e.code)) {
    return retryable(ErrorType.SmtpTransient, `mail server unavailable (${e.code}): ${describe(err)}`, err);
  }
  return retryable(ErrorType.Unexpected, describe(err), err);
}
