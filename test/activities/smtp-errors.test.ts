import assert from 'node:assert/strict';
import { classifySmtpError } from '../../src/activities/smtp-errors';
import { ErrorType } from '../../src/shared/errors';
import { SendEmailErrorType } from '../../src/jobs/send-email';

const cases: [string, object, string, boolean][] = [
  ['421 service unavailable', { responseCode: 421, code: 'EENVELOPE' }, SendEmailErrorType.SmtpTransient, false],
  ['451 local error', { responseCode: 451, code: 'EMESSAGE' }, SendEmailErrorType.SmtpTransient, false],
  ['550 mailbox unavailable', { responseCode: 550, code: 'EENVELOPE' }, SendEmailErrorType.SmtpRejected, true],
  ['554 transaction failed', { responseCode: 554, code: 'EMESSAGE' }, SendEmailErrorType.SmtpRejected, true],
  ['553 address not allowed', { responseCode: 553, code: 'EENVELOPE' }, SendEmailErrorType.InvalidAddress, true],
  ['501 address syntax', { responseCode: 501, code: 'EENVELOPE' }, SendEmailErrorType.InvalidAddress, true],
  ['envelope without reply', { code: 'EENVELOPE' }, SendEmailErrorType.InvalidAddress, true],
  ['535 login refused', { responseCode: 535, code: 'EAUTH', command: 'AUTH PLAIN' }, SendEmailErrorType.SmtpConfig, false],
  ['login with no reply', { code: 'EAUTH', command: 'API' }, SendEmailErrorType.SmtpConfig, false],
  ['550 sender refused at MAIL FROM', { responseCode: 550, code: 'EENVELOPE', command: 'MAIL FROM' }, SendEmailErrorType.SmtpConfig, false],
  ['550 recipient refused at RCPT TO', { responseCode: 550, code: 'EENVELOPE', command: 'RCPT TO' }, SendEmailErrorType.InvalidAddress, true],
  ['554 message refused at DATA', { responseCode: 554, code: 'EMESSAGE', command: 'DATA' }, SendEmailErrorType.SmtpRejected, true],
  ['552 message too large at MAIL FROM', { responseCode: 552, code: 'EMESSAGE', command: 'MAIL FROM' }, SendEmailErrorType.SmtpRejected, true],
  ['451 at RCPT TO', { responseCode: 451, code: 'EENVELOPE', command: 'RCPT TO' }, SendEmailErrorType.SmtpTransient, false],
  ['connection refused', { code: 'ECONNECTION' }, SendEmailErrorType.SmtpTransient, false],
  ['connection reset', { code: 'ECONNRESET' }, SendEmailErrorType.SmtpTransient, false],
  ['timeout', { code: 'ETIMEDOUT' }, SendEmailErrorType.SmtpTransient, false],
  ['a self-signed certificate', { code: 'ESOCKET', originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT', command: 'CONN' }, SendEmailErrorType.SmtpCertificate, false],
  ['a CA in the chain nobody trusts', { code: 'ESOCKET', originalCode: 'SELF_SIGNED_CERT_IN_CHAIN' }, SendEmailErrorType.SmtpCertificate, false],
  ['an unknown issuer', { code: 'ESOCKET', originalCode: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' }, SendEmailErrorType.SmtpCertificate, false],
  ['an expired certificate', { code: 'ESOCKET', originalCode: 'CERT_HAS_EXPIRED' }, SendEmailErrorType.SmtpCertificate, false],
  ['a certificate for another host', { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, SendEmailErrorType.SmtpCertificate, false],
  ['another socket error', { code: 'ESOCKET', originalCode: 'ECONNRESET' }, SendEmailErrorType.SmtpTransient, false],
  ['something else', {}, ErrorType.Unexpected, false],
];

describe('classifySmtpError', () => {
  for (const [name, props, type, nonRetryable] of cases) {
    it(`${name} → ${type}${nonRetryable ? ' (non-retryable)' : ''}`, () => {
      const failure = classifySmtpError(Object.assign(new Error(name), props));
      assert.equal(failure.type, type);
      assert.equal(failure.nonRetryable, nonRetryable);
      assert.ok(failure.cause instanceof Error, 'keeps the original error as cause');
    });
  }
});
