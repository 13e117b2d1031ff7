import type { ApplicationFailure } from '@temporalio/common';
import { describeError, nonRetryable, retryable } from '../activity-kit';
import { ErrorType } from '../workflow-kit';
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

/**
 * Node's codes for a server certificate that fails verification (nodemailer reports them as
 * `originalCode`, under its own `ESOCKET`): each names what an operator changes.
 */
const certificateFixes: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed: trust it with SMTP_CA_FILE',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a CA this worker does not trust: add that CA to SMTP_CA_FILE',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it is signed by a CA this worker does not trust: add that CA to SMTP_CA_FILE',
  UNABLE_TO_GET_ISSUER_CERT: 'it is signed by a CA this worker does not trust: add that CA to SMTP_CA_FILE',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it is signed by a CA this worker does not trust: add that CA to SMTP_CA_FILE',
  CERT_SIGNATURE_FAILURE: 'its signature does not verify: check the relay\'s certificate and SMTP_CA_FILE',
  CERT_UNTRUSTED: 'it is not trusted for this purpose: check SMTP_CA_FILE',
  INVALID_CA: 'a CA in its chain is not valid as a CA: check the relay\'s chain and SMTP_CA_FILE',
  CERT_HAS_EXPIRED: 'it has expired: renew the relay\'s certificate',
  CERT_NOT_YET_VALID: 'it is not valid yet: check the relay\'s certificate and this machine\'s clock',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it does not name the host in SMTP_URL: use a host name the certificate names',
};

/** Reply codes that refuse a recipient address as such (RFC 5321: 501 syntax, 553 name not allowed). */
const addressReplyCodes = new Set([501, 553]);

interface NodemailerError {
  code?: string;
  responseCode?: number;
  command?: string;
  response?: string;
  /** The socket's own code under nodemailer's `ESOCKET`, e.g. `CERT_HAS_EXPIRED`. */
  originalCode?: string;
}

/**
 * Sorts a nodemailer error into a Temporal failure by the SMTP command that failed, then the reply:
 * - the server's TLS certificate fails verification: `send-email:smtp-certificate`, a configuration to
 *   fix (SMTP_CA_FILE, the host in SMTP_URL, the relay's certificate), so it is retried too;
 * - the login (`AUTH …`) or the sender (`MAIL FROM`) refused: our configuration is wrong
 *   (`SMTP_URL` credentials, `EMAIL_FROM`), which an operator fixes, so it is retried
 *   (`send-email:smtp-config`) and the jobs go through once it is fixed;
 * - a recipient refused (`RCPT TO`, 5xx): `send-email:invalid-address`, never retried;
 * - the message refused (`DATA`, or any other 5xx): `send-email:smtp-rejected`, never retried;
 * - 4xx replies and network trouble: `send-email:smtp-transient`, retried.
 */
export function classifySmtpError(err: unknown): ApplicationFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as NodemailerError;
  const reply = e.responseCode;
  const command = e.command ?? '';
  const certCode = [e.originalCode, e.code].find((c): c is string => c !== undefined && c in certificateFixes);
  if (certCode) {
    return retryable(
      SendEmailErrorType.SmtpCertificate,
      `mail server's TLS certificate failed verification (${certCode}): ${certificateFixes[certCode]}, or, knowingly, turn verification off with SMTP_TLS_REJECT_UNAUTHORIZED=false: ${describeError(err)}`,
      err,
    );
  }
  if (e.code === 'EAUTH' || command.startsWith('AUTH')) {
    return retryable(SendEmailErrorType.SmtpConfig, `mail server refused the login${reply ? ` (${reply})` : ''}; check the credentials in SMTP_URL: ${describeError(err)}`, err);
  }
  if (reply !== undefined && reply >= 500) {
    if (command === 'MAIL FROM' && e.code === 'EENVELOPE') {
      return retryable(SendEmailErrorType.SmtpConfig, `mail server refused the sender (${reply}); check EMAIL_FROM: ${describeError(err)}`, err);
    }
    const refusesAddress = e.code === 'EENVELOPE' && (command === 'RCPT TO' || (command === '' && addressReplyCodes.has(reply)));
    if (refusesAddress) return nonRetryable(SendEmailErrorType.InvalidAddress, `mail server refused the recipient (${reply}): ${describeError(err)}`, err);
    return nonRetryable(SendEmailErrorType.SmtpRejected, `mail server rejected the message permanently (${reply}): ${describeError(err)}`, err);
  }
  if (reply !== undefined && reply >= 400) {
    return retryable(SendEmailErrorType.SmtpTransient, `mail server deferred the message (${reply}): ${describeError(err)}`, err);
  }
  if (e.code === 'EENVELOPE') {
    return nonRetryable(SendEmailErrorType.InvalidAddress, `invalid recipient: ${describeError(err)}`, err);
  }
  if (e.code !== undefined && transientCodes.has(e.code)) {
    return retryable(SendEmailErrorType.SmtpTransient, `mail server unavailable (${e.code}): ${describeError(err)}`, err);
  }
  return retryable(ErrorType.Unexpected, describeError(err), err);
}
