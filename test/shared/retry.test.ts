import assert from 'node:assert/strict';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { toScheduledFailure } from '../../src/activity-kit/retry-schedule';
import { delayAfterAttempt, exponentialRetry, maxAttempts, retrySchedule, toRetryPolicy } from '../../src/shared/retry';

describe('retry shapes', () => {
  const steps = retrySchedule('1s', '5s', '30s', '5m', '30m');

  it('a schedule of N delays allows N+1 attempts and names each wait', () => {
    assert.equal(maxAttempts(steps), 6);
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((a) => delayAfterAttempt(steps, a)), ['1s', '5s', '30s', '5m', '30m', undefined]);
  });

  it('a schedule becomes a policy bounded by its attempts, with a fallback backoff capped at the longest step', () => {
    assert.deepEqual(toRetryPolicy(steps, ['jobs:x']), {
      maximumAttempts: 6,
      nonRetryableErrorTypes: ['jobs:x'],
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: 30 * 60_000,
    });
  });

  it('exponential fills in documented defaults and maps one-to-one onto the policy', () => {
    const shape = exponentialRetry({ maximumAttempts: 4 });
    assert.deepEqual(toRetryPolicy(shape), {
      maximumAttempts: 4,
      nonRetryableErrorTypes: [],
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '10m',
    });
    assert.equal(delayAfterAttempt(shape, 1), undefined);
  });

  it('rejects an empty schedule', () => {
    assert.throws(() => retrySchedule(), /at least one delay/);
  });

  it('toScheduledFailure keeps non-retryable failures and stamps retryable ones with the step', () => {
    const fatal = ApplicationFailure.nonRetryable('no', 'jobs:x');
    assert.equal(toScheduledFailure(steps, 1, fatal), fatal);
    const retried = toScheduledFailure(steps, 2, new TypeError('boom'));
    assert.ok(retried instanceof ApplicationFailure);
    assert.equal(retried.type, 'TypeError');
    assert.equal(retried.nextRetryDelay, '5s');
    assert.equal(retried.nonRetryable, false);
  });

  it('toScheduledFailure gives a plain error a type on the last attempt too, and under an exponential shape', () => {
    for (const [shape, attempt] of [[steps, 6], [exponentialRetry({ maximumAttempts: 3 }), 1]] as const) {
      const failure = toScheduledFailure(shape, attempt, new Error('disk on fire'));
      assert.ok(failure instanceof ApplicationFailure);
      assert.equal(failure.type, 'jobs:unexpected');
      assert.equal(failure.nextRetryDelay, undefined);
      assert.equal(failure.message, 'disk on fire');
    }
  });

  it('toScheduledFailure leaves cancellation alone', () => {
    const cancelled = new CancelledFailure('worker shutting down');
    assert.equal(toScheduledFailure(steps, 1, cancelled), cancelled);
  });
});
