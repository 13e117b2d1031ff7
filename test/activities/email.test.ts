import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createEmailActivities, messageIdFor, outboxFileFor } from '../../src/activities/email';
import type { SendEmailResult } from '../../src/jobs/send-email';
import { emailTemplateVariables } from '../../src/jobs/payloads/send-email';
import { emailTemplates } from '../../src/activities/email-templates';
import { ErrorType } from '../../src/shared/errors';
import { startSmtpServer } from '../helpers/smtp';
import { sqliteTestDb } from '../helpers/db';
import { ledgerSteps } from '../../src/activity-kit/ledger';
import { SendEmailErrorType, sendEmailJob } from '../../src/jobs/send-email';
import { asJobStep } from '../../src/testing/run-step';
import { recordJobAttempt } from '../../src/activity-kit/job-attempt';
import { Context } from '@temporalio/activity';

const payload = { to: 'ada@example.com', subject: 'Welcome', template: { name: 'welcome', vars: { name: 'Ada' } }, userId: 'u-7' };
/** A mock activity environment for one attempt, with its log lines kept out of the test output. */
const mockEnv = (attempt = 1) => new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger('ERROR', () => {}) });
type SendEmail = (payload: unknown) => Promise<SendEmailResult>;
/** `sendEmail` as an attempt of the job `jobId`'s step `send` (execution `run-1` unless given), with its retry schedule. */
const step = (sendEmail: SendEmail, jobId: string, execution = 'run-1') => asJobStep(sendEmail, { jobId, execution, definition: sendEmailJob, preset: 'send' });

describe('email templates', () => {
  it('each uses exactly the variables its payload schema requires', () => {
    assert.deepEqual(Object.keys(emailTemplates).sort(), Object.keys(emailTemplateVariables).sort());
    for (const [name, body] of Object.entries(emailTemplates)) {
      const used = [...new Set([...body.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]))].sort();
      assert.deepEqual(used, [...emailTemplateVariables[name as keyof typeof emailTemplateVariables]].sort(), name);
    }
  });
});

describe('sendEmail activity (MockActivityEnvironment)', () => {
  it('renders the template into one outbox file named after the job, and a second attempt writes nothing new', async () => {
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const { sendEmail } = createEmailActivities({ outboxDir, from: 'jobs@test' });
    const first = (await mockEnv(1).run(step(sendEmail, 'job/1'), payload)) as SendEmailResult;
    const second = (await mockEnv(2).run(step(sendEmail, 'job/1'), payload)) as SendEmailResult;

    assert.deepEqual(await readdir(outboxDir), [outboxFileFor('job/1')]);
    assert.match(outboxFileFor('job/1'), /^job_1-[0-9a-f]{16}\.eml$/);
    const eml = await readFile(first.path!, 'utf8');
    assert.match(eml, /Hello Ada,/);
    assert.match(eml, /Message-ID: <job%2F1@durable-jobs>/);
    assert.match(eml, /X-User-ID: u-7/i);
    assert.equal(first.alreadySent, false);
    assert.equal(second.alreadySent, true);
    assert.equal(second.messageId, messageIdFor('job/1'));
  });

  it('accepts a payload from a newer client with a field this worker does not know (rolling deploys), dropping it', async () => {
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const { sendEmail } = createEmailActivities({ outboxDir, from: 'jobs@test' });
    const result = (await mockEnv(1).run(step(sendEmail, 'job-newer'), { ...payload, priority: 'high' })) as SendEmailResult;
    assert.equal(result.alreadySent, false);
    assert.doesNotMatch(await readFile(result.path!, 'utf8'), /priority/);
  });

  it('sends a step that a workflow of 0.2 scheduled (no job header; the payload in its { jobId, createdAt, payload } envelope) with that Date', async () => {
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const { sendEmail } = createEmailActivities({ outboxDir, from: 'jobs@test' });
    const legacy = async (input: unknown) => {
      recordJobAttempt(Context.current(), { jobId: 'job-0.2', jobType: 'send-email', execution: 'run-0.2', attempt: 1, headed: false, preset: 'send' });
      return sendEmail(input);
    };
    const result = (await mockEnv(1).run(legacy, { jobId: 'job-0.2', createdAt: '2026-01-02T03:04:05.000Z', payload })) as SendEmailResult;
    const eml = await readFile(result.path!, 'utf8');
    assert.match(eml, /Hello Ada,/);
    assert.match(eml, /Date: Fri, 02 Jan 2026 03:04:05 \+0000/);
    assert.match(eml, /Message-ID: <job-0\.2@durable-jobs>/);
  });

  it('re-validates the payload and fails it as non-retryable jobs:invalid-payload', async () => {
    const { sendEmail } = createEmailActivities({ outboxDir: os.tmpdir(), from: 'jobs@test' });
    const err = await mockEnv().run(step(sendEmail, 'job-2'), { to: 'nope' }).catch((e: unknown) => e);
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, ErrorType.InvalidPayload);
    assert.equal(err.nonRetryable, true);
  });

  it('puts the schedule step for this attempt on a retryable SMTP failure as nextRetryDelay', async () => {
    const smtp = await startSmtpServer(() => ({ code: 421, message: 'busy' }));
    try {
      const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' });
      const err = await mockEnv(3).run(step(sendEmail, 'job-3'), payload).catch((e: unknown) => e);
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, SendEmailErrorType.SmtpTransient);
      assert.equal(err.nonRetryable, false);
      assert.equal(err.nextRetryDelay, '30s');
    } finally {
      await smtp.close();
    }
  });

  it('records a message the mail server accepted in the ledger: a later attempt of the same execution sends nothing, a redrive (a new execution) sends again', async () => {
    const smtp = await startSmtpServer();
    const testDb = await sqliteTestDb();
    try {
      const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test', ledger: testDb.db });
      const first = (await mockEnv(1).run(step(sendEmail, 'job-ledger'), payload)) as SendEmailResult;
      // The first attempt's completion was lost (a crash after the server's reply): Temporal runs it again.
      const again = (await mockEnv(2).run(step(sendEmail, 'job-ledger'), payload)) as SendEmailResult;
      assert.deepEqual([first.alreadySent, again.alreadySent], [false, true]);
      assert.equal(again.messageId, messageIdFor('job-ledger'));
      assert.equal(smtp.received.length, 1, 'one message sent');
      assert.deepEqual(await ledgerSteps(testDb.db, 'job-ledger'), [{ execution: 'run-1', step: 'send' }]);
      await mockEnv(1).run(step(sendEmail, 'job-ledger', 'run-2'), payload);
      assert.equal(smtp.received.length, 2, 'a redriven job sends its message again');
    } finally {
      await testDb.close();
      await smtp.close();
    }
  });

  it('gives up on a server that accepts but never answers, as a retryable timeout', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const { sendEmail } = createEmailActivities({ smtpUrl: `smtp://127.0.0.1:${port}`, outboxDir: os.tmpdir(), from: 'jobs@test', smtpTimeoutMs: 300 });
      const started = Date.now();
      const err = await mockEnv(2).run(step(sendEmail, 'job-5'), payload).catch((e: unknown) => e);
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, SendEmailErrorType.SmtpTransient);
      assert.equal(err.nextRetryDelay, '5s');
      // The configured 300 ms against the 10 s default: 5 s tells them apart with seconds of margin either side.
      assert.ok(Date.now() - started < 5000, 'the SMTP timeout, not the activity timeout, ended the attempt');
    } finally {
      silent.close();
    }
  });

  it('treats a refused connection as retryable', async () => {
    const smtp = await startSmtpServer();
    const url = smtp.url;
    await smtp.close();
    const { sendEmail } = createEmailActivities({ smtpUrl: url, outboxDir: os.tmpdir(), from: 'jobs@test' });
    const err = await mockEnv(1).run(step(sendEmail, 'job-4'), payload).catch((e: unknown) => e);
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, SendEmailErrorType.SmtpTransient);
    assert.equal(err.nextRetryDelay, '1s');
  });

  it('names outbox files by a bounded, case-safe mapping: a 250-character ID works, and Job-A and job-a get two files', async () => {
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const { sendEmail } = createEmailActivities({ outboxDir, from: 'jobs@test' });
    const long = `j${'x'.repeat(249)}`;
    for (const id of [long, 'Job-A', 'job-a']) await mockEnv(1).run(step(sendEmail, id), payload);
    const files = (await readdir(outboxDir)).sort();
    assert.equal(files.length, 3);
    assert.ok(files.every((f) => f.length <= 62), files.join());
    assert.notEqual(outboxFileFor('Job-A').toLowerCase(), outboxFileFor('job-a').toLowerCase());
  });

  it('finds a message written under the earlier, unhashed file name and writes nothing new', async () => {
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    await writeFile(path.join(outboxDir, 'old-job.eml'), 'sent before the upgrade');
    const { sendEmail } = createEmailActivities({ outboxDir, from: 'jobs@test' });
    const result = (await mockEnv(2).run(step(sendEmail, 'old-job'), payload)) as SendEmailResult;
    assert.equal(result.alreadySent, true);
    assert.deepEqual(await readdir(outboxDir), ['old-job.eml']);
  });

  it('fails at once, as send-email:outbox-unwritable, when the outbox cannot be written', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const blocker = path.join(parent, 'not-a-dir');
    await writeFile(blocker, '');
    const { sendEmail } = createEmailActivities({ outboxDir: path.join(blocker, 'outbox'), from: 'jobs@test' });
    const err = await mockEnv(1).run(step(sendEmail, 'job-x'), payload).catch((e: unknown) => e);
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, SendEmailErrorType.OutboxUnwritable);
    assert.equal(err.nonRetryable, true);
    assert.match(err.message, /ENOTDIR/);
  });

  describe('against a real SMTP server, classified by the command it refused', () => {
    const cases = [
      ['a refused login (535, a rotated password)', { login: { user: 'jobs', pass: 'new-password' } }, 'smtp://jobs:old-password@', SendEmailErrorType.SmtpConfig, false],
      ['a refused sender (550 at MAIL FROM)', { stage: 'MAIL FROM' }, 'smtp://', SendEmailErrorType.SmtpConfig, false],
      ['a refused recipient (550 at RCPT TO)', { stage: 'RCPT TO' }, 'smtp://', SendEmailErrorType.InvalidAddress, true],
      ['a refused message (554 at DATA)', { stage: 'DATA' }, 'smtp://', SendEmailErrorType.SmtpRejected, true],
    ] as const;
    for (const [name, options, scheme, type, nonRetryable] of cases) {
      it(`${name} → ${type}${nonRetryable ? ' (non-retryable)' : ' (retried)'}`, async () => {
        const code = 'stage' in options && options.stage === 'DATA' ? 554 : 550;
        const smtp = await startSmtpServer(() => ({ code, message: 'refused' }), options);
        try {
          const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url.replace('smtp://', scheme), outboxDir: os.tmpdir(), from: 'jobs@test' });
          const err = await mockEnv(1).run(step(sendEmail, `job-${type}`), payload).catch((e: unknown) => e);
          assert.ok(err instanceof ApplicationFailure, String(err));
          assert.equal(err.type, type);
          assert.equal(err.nonRetryable, nonRetryable);
          if (!nonRetryable) assert.equal(err.nextRetryDelay, '1s', 'retried on the schedule');
          assert.equal(smtp.received.length, 0);
        } finally {
          await smtp.close();
        }
      });
    }
  });
  describe('cancellation', () => {
    const until = async (what: string, check: () => boolean) => {
      for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(check(), what);
    };

    it('a cancelled attempt closes the connection while the server holds DATA: nothing is accepted, even when the server then goes ahead', async () => {
      const smtp = await startSmtpServer(undefined, { holdData: () => Infinity });
      try {
        const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' });
        const env = mockEnv(1);
        const heartbeats: unknown[] = [];
        env.on('heartbeat', (d: unknown) => heartbeats.push(d));
        const attempt = env.run(step(sendEmail, 'job-cancel'), payload).catch((e: unknown) => e);
        await until('the server holds the DATA command', () => smtp.holding() === 1);
        assert.ok(heartbeats.length >= 1, 'the attempt heartbeats while it waits, so a cancellation can reach it');
        env.cancel('CANCELLED');
        const err = await attempt;
        assert.ok(err instanceof CancelledFailure, `the attempt reports cancellation, got ${String(err)}`);
        await until('the client closed its connection mid-transaction', () => smtp.abandoned() === 1);
        smtp.release();
        // Nothing may arrive in this window: the connection is gone (above), and a message the server
        // still took would land in milliseconds on loopback.
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(smtp.received.length, 0, 'the server accepted no message');
      } finally {
        await smtp.close();
      }
    });

    it('an uncancelled attempt waits out a slow DATA phase and sends one message', async () => {
      const smtp = await startSmtpServer(undefined, { holdData: () => 1500 });
      try {
        const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' });
        const result = (await mockEnv(1).run(step(sendEmail, 'job-slow'), payload)) as SendEmailResult;
        assert.equal(result.transport, 'smtp');
        assert.equal(smtp.received.length, 1);
        assert.match(smtp.received[0]!.raw, /Message-ID: <job-slow@durable-jobs>/);
      } finally {
        await smtp.close();
      }
    });

    it('an attempt cancelled before it starts opens no connection', async () => {
      const smtp = await startSmtpServer();
      try {
        const { sendEmail } = createEmailActivities({ smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' });
        const env = mockEnv(1);
        env.cancel('WORKER_SHUTDOWN');
        const err = await env.run(step(sendEmail, 'job-early'), payload).catch((e: unknown) => e);
        assert.ok(err instanceof CancelledFailure, String(err));
        assert.equal(smtp.attempts(), 0);
      } finally {
        await smtp.close();
      }
    });
  });
});
