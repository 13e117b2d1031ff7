import assert from 'node:assert/strict';
import { classifySmtpError } from '../../src/activities/smtp-errors';
import { ErrorType } from '../../src/shared/errors';

const cases: [string, object, string, boolean][] = [
  ['421 service unavailable', { responseCode: 421, code: 'EENVELOPE' }, ErrorType.SmtpTransient, false],
  ['451 local error', { responseCode: 451, code: 'EMESSAGE' }, ErrorType.SmtpTransient, false],
  ['550 mailbox unavailable', { responseCode: 550, code: 'EENVELOPE' }, ErrorType.SmtpRejected, true],
  ['554 transaction failed', { responseCode: 554, code: 'EMESSAGE' }, ErrorType.SmtpRejected, true],
  ['553 address not allowed', { responseCode: 553, code: 'EENVELOPE' }, ErrorType.InvalidAddress, true],
  ['501 address syntax', { responseCode: 501, code: 'EENVELOPE' }, ErrorType.InvalidAddress, true],
  ['envelope without reply', { code: 'EENVELOPE' }, ErrorType.InvalidAddress, true],
  ['535 login refused', { responseCode: 535, code: 'EAUTH', command: 'AUTH PLAIN' }, ErrorType.SmtpConfig, false],
  ['login with no reply', { code: 'EAUTH', command: 'API' }, ErrorType.SmtpConfig, false],
  ['550 sender refused at MAIL FROM', { responseCode: 550, code: 'EENVELOPE', command: 'MAIL FROM' }, ErrorType.SmtpConfig, false],
  ['550 recipient refused at RCPT TO', { responseCode: 550, code: 'EENVELOPE', command: 'RCPT TO' }, ErrorType.InvalidAddress, true],
  ['554 message refused at DATA', { responseCode: 554, code: 'EMESSAGE', command: 'DATA' }, ErrorType.SmtpRejected, true],
  ['552 message too large at MAIL FROM', { responseCode: 552, code: 'EMESSAGE', command: 'MAIL FROM' }, ErrorType.SmtpRejected, true],
  ['451 at RCPT TO', { responseCode: 451, code: 'EENVELOPE', command: 'RCPT TO' }, ErrorType.SmtpTransient, false],
  ['connection refused', { code: 'ECONNECTION' }, ErrorType.SmtpTransient, false],
  ['connection reset', { code: 'ECONNRESET' }, ErrorType.SmtpTransient, false],
  ['timeout', { code: 'ETIMEDOUT' }, ErrorType.SmtpTransient, false],
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
