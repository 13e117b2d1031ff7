import assert from 'node:assert/strict';
import os from 'node:os';
import { formatDeadLetterEntry, formatJobRecord, formatRedrivePlan } from '../../src/client/format';
import { planSteps } from '../../src/client/redrive-plan';
import { jobctlUser } from '../../src/jobctl/cli-support';
import type { DeadLetterEntry } from '../../src/workflow-kit/dead-letter-entries';

describe('jobctl status text (formatJobRecord)', () => {
  it("shows the job's own report: its step among its steps, progress, compensation, and its run", () => {
    const text = formatJobRecord({
      id: 'payment:p1', type: 'process-payment', payload: {}, status: 'failed', attempts: 6, maxAttempts: 6, createdAt: '2026-12-01T00:00:00.000Z',
      step: 'capture', steps: ['reserve', 'capture', 'release'], progress: { done: 1, total: 3, unit: 'steps' },
      compensation: { status: 'done', undone: ['reserve'] }, run: 2,
    });
    assert.match(text, /^step: +capture \(2 of 3: reserve → capture → release\)$/m);
    assert.match(text, /^progress: +1\/3 steps$/m);
    assert.match(text, /^compensation: +done, undid reserve$/m);
    assert.match(text, /^run: +2$/m);
  });

  it('leaves out what the job did not report', () => {
    const text = formatJobRecord({ id: 'x', type: 'noop', payload: {}, status: 'completed', attempts: 1, maxAttempts: 4, createdAt: '2026-12-01T00:00:00.000Z' });
    assert.doesNotMatch(text, /^(step|progress|compensation|run):/m);
  });
});

describe('jobctl dlq show text (formatDeadLetterEntry)', () => {
  const entry: DeadLetterEntry = {
    id: 'payment:p1', type: 'process-payment', payload: { paymentId: 'p1', toAccount: 'nobody' }, status: 'discarded', lastRunId: 'run-1',
    attempts: 1, failures: 1, firstFailedAt: '2026-12-01T00:00:01.000Z', lastFailedAt: '2026-12-01T00:00:01.000Z', createdAt: '2026-12-01T00:00:00.000Z',
    error: { type: 'process-payment:unknown-account', message: 'no account "nobody"' }, fingerprint: 'abc123', fingerprintText: 'process-payment:unknown-account: no account "<s>"',
    audit: [
      { at: '2026-12-01T00:00:01.000Z', action: 'dead-lettered', result: 'run run-1 failed after 1 attempt(s)', detail: 'process-payment:unknown-account' },
      { at: '2026-12-01T00:05:00.000Z', action: 'redrive', result: 'failed: boom', detail: 'try again', patch: { toAccount: 'bob' }, by: 'ana' },
      { at: '2026-12-01T00:06:00.000Z', action: 'discard', result: 'discarded', detail: 'paid by hand', by: 'ben\u001b[31m' },
    ],
  };

  it('prints who did each operation in its audit line, with the reason and the patch', () => {
    const lines = formatDeadLetterEntry(entry).split('\n');
    const audit = lines.slice(lines.indexOf('audit:') + 1);
    assert.deepEqual(audit, [
      '  2026-12-01T00:00:01.000Z  dead-lettered  run run-1 failed after 1 attempt(s) (process-payment:unknown-account)',
      '  2026-12-01T00:05:00.000Z  redrive        by ana: failed: boom (try again) patch {"toAccount":"bob"}',
      '  2026-12-01T00:06:00.000Z  discard        by ben\\u001b[31m: discarded (paid by hand)',
    ]);
    assert.match(formatDeadLetterEntry(entry), /^status: +discarded$/m);
    assert.match(formatDeadLetterEntry(entry), /^error: +process-payment:unknown-account: no account "nobody"$/m);
  });

  it('prints the failed run\'s trace ID when the entry kept its trace context, and no line when it did not', () => {
    const traced = { ...entry, traceContext: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } };
    assert.match(formatDeadLetterEntry(traced), /^traceId: +4bf92f3577b34da6a3ce929d0e0e4736$/m);
    assert.doesNotMatch(formatDeadLetterEntry(entry), /traceId/);
  });
});

describe('jobctl user for the audit trail (jobctlUser)', () => {
  it('is JOBCTL_USER when set, else the OS user', () => {
    assert.equal(jobctlUser({ JOBCTL_USER: ' ana ' }), 'ana');
    assert.equal(jobctlUser({}), os.userInfo().username);
    assert.equal(jobctlUser({ JOBCTL_USER: '' }), os.userInfo().username);
    assert.throws(() => jobctlUser({ JOBCTL_USER: 'x'.repeat(201) }), /JOBCTL_USER: must be a name of at most 200 characters/);
  });
});

describe('jobctl dlq redrive --dry-run step plan (formatRedrivePlan)', () => {
  it('prints each step and what a redrive does to it; a step done and not undone stands out', () => {
    const steps = planSteps(['reserve', 'capture', 'release'], [
      { step: 'reserve', created_at: '2026-12-01T00:00:01.000Z' },
      { step: 'capture', created_at: '2026-12-01T00:00:02.000Z' },
      { step: 'compensate:reserve', created_at: '2026-12-01T00:00:03.000Z' },
    ]);
    const text = formatRedrivePlan({ id: 'payment:p1', type: 'process-payment', execution: 'run-1', ledger: true, steps, doubleEffects: ['capture'] });
    assert.deepEqual(text.split('\n'), [
      'payment:p1 (failed execution run-1)',
      '  reserve  done, then undone by compensation: it will run again',
      '  capture  DONE AND NOT UNDONE: IT WILL RUN AGAIN (a double effect)',
      '  release  not recorded as done: it will run',
    ]);
  });
});
