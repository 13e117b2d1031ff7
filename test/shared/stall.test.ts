import assert from 'node:assert/strict';
import { stallErrorType } from '../../src/shared/job-metrics';
import { stallReason } from '../../src/shared/stall';

// Proto failures as the client decodes them (enums as numbers) and as JSON histories spell them.
describe('stallReason', () => {
  const activityFailure = (cause: object) => ({ message: 'activity task failed', activityFailureInfo: {}, cause });

  it('names a heartbeat timeout, a start-to-close timeout and a worker shutdown, under the activity wrapper', () => {
    assert.equal(stallReason(activityFailure({ message: 'activity Heartbeat timeout', timeoutFailureInfo: { timeoutType: 4 } })), 'heartbeat-timeout');
    assert.equal(stallReason(activityFailure({ message: 'activity StartToClose timeout', timeoutFailureInfo: { timeoutType: 1 } })), 'start-to-close-timeout');
    assert.equal(stallReason({ timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_HEARTBEAT' } }), 'heartbeat-timeout');
    assert.equal(stallReason({ timeoutFailureInfo: { timeoutType: 'START_TO_CLOSE' } }), 'start-to-close-timeout');
    assert.equal(stallReason(activityFailure({ message: 'the worker shut down', applicationFailureInfo: { type: 'jobs:worker-shutdown' } })), 'worker-shutdown');
    assert.equal(stallReason({ message: 'WORKER_SHUTDOWN', canceledFailureInfo: {} }), 'worker-shutdown');
  });

  it('leaves the attempt\'s own failures and the other timeouts alone', () => {
    assert.equal(stallReason(activityFailure({ message: 'mailbox unavailable', applicationFailureInfo: { type: 'send-email:smtp-rejected' } })), undefined);
    assert.equal(stallReason({ timeoutFailureInfo: { timeoutType: 3 } }), undefined, 'schedule-to-close: the job ran out of time, no worker stalled');
    assert.equal(stallReason({ message: 'cancelled', canceledFailureInfo: {} }), undefined, 'a cancelled job');
    assert.equal(stallReason(undefined), undefined);
  });

  it('counts each stall under an error type of its own', () => {
    assert.deepEqual((['heartbeat-timeout', 'start-to-close-timeout', 'worker-shutdown'] as const).map(stallErrorType), ['timeout:heartbeat', 'timeout:start-to-close', 'worker-shutdown']);
  });
});
