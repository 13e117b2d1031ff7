import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { withRetrySchedule } from '../../src/activity-kit/retry-schedule';
import { syncDataJob } from '../../src/jobs/sync-data';

// The log line of a failed attempt is written before the activity interceptor scrubs the error for
// the history: it must not quote a sensitive field's value either.
describe('job:attempt-failed log lines', () => {
  const token = 'tok-secret-77c2e1';

  it('keeps an error whose message cannot be assigned (a timed-out fetch\'s DOMException) and masks what it quotes', async () => {
    const env = new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR', () => undefined) });
    const page = withRetrySchedule(syncDataJob, 'page', async (_input: { payload: { source: string; sourceToken: string } }) => {
      throw new Error('the source did not answer', { cause: new DOMException(`request with ${token} timed out`, 'TimeoutError') });
    });
    const failure = await env.run(page, { payload: { source: 'crm', sourceToken: token } }).catch((e: unknown) => e);
    assert.equal((failure as Error).message, 'the source did not answer');
    const cause = (failure as { cause?: { cause?: DOMException } }).cause?.cause ?? (failure as { cause?: DOMException }).cause;
    assert.ok(cause instanceof DOMException, String(cause));
    assert.equal(cause.message, 'request with [sensitive] timed out');
  });

  for (const [name, thrown, shown] of [
    ['a plain error', () => new Error(`token ${token} is not valid`), /token \[sensitive\] is not valid/],
    ['the cause of an error', () => new Error('the source refused the request', { cause: new Error(`Bearer ${token}`) }), /refused/],
  ] as const) {
    it(`mask a sensitive value quoted by ${name}, in the line and in the failure thrown`, async () => {
      const logged: LogEntry[] = [];
      const env = new MockActivityEnvironment({ attempt: 2 }, { logger: new DefaultLogger('DEBUG', (e) => logged.push(e)) });
      const page = withRetrySchedule(syncDataJob, 'page', async (_input: { payload: { source: string; sourceToken: string } }) => {
        throw thrown();
      });
      const failure = await env.run(page, { payload: { source: 'crm', sourceToken: token } }).catch((e: unknown) => e);

      const line = logged.find((e) => e.message === 'job:attempt-failed');
      assert.ok(line, `a job:attempt-failed line: ${logged.map((e) => e.message).join(', ')}`);
      assert.match(String(line.meta?.error), shown);
      assert.doesNotMatch(JSON.stringify(logged.map((e) => [e.message, e.meta])), new RegExp(token));
      const messages: string[] = [];
      for (let e: unknown = failure; e instanceof Error; e = e.cause) messages.push(e.message);
      assert.doesNotMatch(messages.join(' | '), new RegExp(token));
    });
  }
});
