import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createEmailActivities, requiresTls, type SmtpTlsOptions } from '../../src/activities/email';
import { SendEmailErrorType, sendEmailJob, type SendEmailResult } from '../../src/jobs/send-email';
import { asJobStep } from '../../src/testing/run-step';
import { loadBuiltInSettings } from '../../src/jobs/settings';
import { ConfigError } from '../../src/shared/errors';
import { startSmtpServer } from '../helpers/smtp';
import { makeTestCerts, type TestCert, type TestCerts } from '../helpers/tls-certs';

describe('SMTP login over plain smtp://', () => {
  it('requires STARTTLS before a login to another machine, so the password never crosses the network in clear', () => {
    assert.equal(requiresTls('smtp://user:pw@mail.example.com:587'), true);
    assert.equal(requiresTls('smtp://token@10.0.0.5'), true);
  });

  it('leaves smtps://, loopback relays, logins-free URLs and an explicit opt-out alone', () => {
    assert.equal(requiresTls('smtps://user:pw@mail.example.com'), false);
    assert.equal(requiresTls('smtp://user:pw@127.0.0.1:2525'), false);
    assert.equal(requiresTls('smtp://user:pw@localhost'), false);
    assert.equal(requiresTls('smtp://mail.example.com:25'), false);
    assert.equal(requiresTls('smtp://user:pw@mail.internal?requireTLS=false'), false);
  });
});

const payload = { to: 'ada@example.com', subject: 'Over TLS', body: 'Hello', userId: 'u-tls' };
const mockEnv = () => new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR', () => {}) });

// A real SMTP server on loopback offering STARTTLS with certificates made for the test.
describe('mail relays with certificates of their own (STARTTLS on loopback)', function () {
  let certs: TestCerts;
  before(async () => {
    certs = await makeTestCerts();
  });
  after(() => certs?.remove());

  /** Sends one message to a relay presenting `cert`, as `host`; the error, or the result and the messages the relay took. */
  async function send(cert: TestCert, tls: SmtpTlsOptions | undefined, host = 'localhost') {
    const smtp = await startSmtpServer(undefined, { tls: cert });
    try {
      const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url.replace('127.0.0.1', host), outboxDir: os.tmpdir(), from: 'jobs@test', tls });
      const outcome = await mockEnv()
        .run(asJobStep(sendEmail, { jobId: `tls-${Math.random()}`, definition: sendEmailJob, preset: 'send' }), payload)
        .catch((e: unknown) => e);
      return { outcome: outcome as SendEmailResult | ApplicationFailure | undefined, received: smtp.received };
    } finally {
      await smtp.close();
    }
  }

  /** The failure a relay's certificate causes: a configuration failure, retried, naming the code and the setting that fixes it. */
  function assertCertificateFailure(outcome: unknown, code: string, fix: RegExp): void {
    assert.ok(outcome instanceof ApplicationFailure, `expected a failure, got ${String(outcome)}`);
    assert.equal(outcome.type, SendEmailErrorType.SmtpCertificate);
    assert.equal(outcome.nonRetryable, false, 'retried on the schedule, so fixing the setting saves the job');
    assert.equal(outcome.nextRetryDelay, '1s');
    assert.match(outcome.message, new RegExp(`\\(${code}\\)`));
    assert.match(outcome.message, fix);
    assert.match(outcome.message, /SMTP_TLS_REJECT_UNAUTHORIZED=false/);
    assert.ok(outcome.cause instanceof Error, 'keeps the TLS error as cause');
  }

  it('a self-signed certificate → send-email:smtp-certificate (retried), naming SMTP_CA_FILE; trusting that certificate delivers over TLS', async () => {
    const refused = await send(certs.selfSigned, undefined);
    assertCertificateFailure(refused.outcome, 'DEPTH_ZERO_SELF_SIGNED_CERT', /self-signed: trust it with SMTP_CA_FILE/);
    assert.equal(refused.received.length, 0);
    const trusted = await send(certs.selfSigned, { ca: certs.selfSigned.cert });
    assert.equal((trusted.outcome as SendEmailResult).transport, 'smtp', String(trusted.outcome));
    assert.deepEqual(trusted.received.map((m) => m.secure), [true]);
  });

  it('a certificate signed by an unknown CA → send-email:smtp-certificate; that CA in SMTP_CA_FILE delivers over TLS', async () => {
    const refused = await send(certs.signed, undefined);
    assertCertificateFailure(refused.outcome, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', /CA this worker does not trust: add that CA to SMTP_CA_FILE/);
    const settings = loadBuiltInSettings('/d', {}, { SMTP_URL: 'smtp://127.0.0.1:25', SMTP_CA_FILE: certs.ca.file });
    assert.deepEqual(settings.smtpTls, { ca: certs.ca.cert, caFile: certs.ca.file, rejectUnauthorized: true });
    for (const host of ['localhost', '127.0.0.1']) {
      const trusted = await send(certs.signed, settings.smtpTls, host);
      assert.equal((trusted.outcome as SendEmailResult).transport, 'smtp', `${host}: ${String(trusted.outcome)}`);
      assert.deepEqual(trusted.received.map((m) => m.secure), [true]);
    }
  });

  it('a certificate for another host name → send-email:smtp-certificate, naming the host in SMTP_URL', async () => {
    const { outcome, received } = await send(certs.wrongHost, { ca: certs.ca.cert });
    assertCertificateFailure(outcome, 'ERR_TLS_CERT_ALTNAME_INVALID', /does not name the host in SMTP_URL/);
    assert.equal(received.length, 0);
  });

  it('an expired certificate → send-email:smtp-certificate, even from a trusted CA', async () => {
    const { outcome, received } = await send(certs.expired, { ca: certs.ca.cert });
    assertCertificateFailure(outcome, 'CERT_HAS_EXPIRED', /expired: renew the relay's certificate/);
    assert.equal(received.length, 0);
  });

  it('SMTP_TLS_REJECT_UNAUTHORIZED=false accepts any certificate, still over TLS', async () => {
    const settings = loadBuiltInSettings('/d', {}, { SMTP_TLS_REJECT_UNAUTHORIZED: 'false' });
    assert.equal(settings.smtpTls.rejectUnauthorized, false);
    for (const cert of [certs.selfSigned, certs.wrongHost, certs.expired]) {
      const { outcome, received } = await send(cert, settings.smtpTls);
      assert.equal((outcome as SendEmailResult).transport, 'smtp', String(outcome));
      assert.deepEqual(received.map((m) => m.secure), [true]);
    }
  });

  it('refuses at start an SMTP_CA_FILE that is missing or holds no certificate, and a malformed SMTP_TLS_REJECT_UNAUTHORIZED, naming the setting', async () => {
    const notPem = path.join(certs.dir, 'not-a-cert.pem');
    await writeFile(notPem, 'hello\n');
    const named = (setting: string, detail: RegExp) => (err: unknown) => err instanceof ConfigError && err.issues.some((i) => i.path === setting && detail.test(i.message));
    assert.throws(() => loadBuiltInSettings('/d', {}, { SMTP_CA_FILE: path.join(certs.dir, 'missing.pem') }), named('SMTP_CA_FILE', /cannot read .*missing\.pem.*ENOENT/));
    assert.throws(() => loadBuiltInSettings('/d', {}, { SMTP_CA_FILE: notPem }), named('SMTP_CA_FILE', /holds no PEM certificate/));
    assert.throws(() => loadBuiltInSettings('/d', {}, { SMTP_CA_FILE: certs.dir }), named('SMTP_CA_FILE', /cannot read/));
    assert.throws(() => loadBuiltInSettings('/d', {}, { SMTP_TLS_REJECT_UNAUTHORIZED: 'no' }), named('SMTP_TLS_REJECT_UNAUTHORIZED', /must be true or false/));
    assert.deepEqual(loadBuiltInSettings('/d', {}, {}).smtpTls, { ca: undefined, caFile: undefined, rejectUnauthorized: true });
  });
});
