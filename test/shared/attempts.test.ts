import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import { activityAttempts, attemptsEventId, attemptsInTail, pendingAttemptsBegun } from '../../src/shared/attempts';

// History events as the client decodes them. The local activity marker's data is what the SDK core
// records (LocalActivityMarkerData as JSON, read from a time-skipping run of the noop job).
const event = (e: object) => temporal.api.history.v1.HistoryEvent.fromObject(e);
const scheduled = (eventId: number, activityId: string) => event({ eventId, activityTaskScheduledEventAttributes: { activityId } });
const started = (eventId: number, scheduledEventId: number, attempt: number) => event({ eventId, activityTaskStartedEventAttributes: { scheduledEventId, attempt } });
const json = (value: unknown) => ({ payloads: [{ data: Buffer.from(JSON.stringify(value)) }] });
const marker = (eventId: number, activityId: string, attempt: number) =>
  event({
    eventId,
    markerRecordedEventAttributes: { markerName: 'core_local_activity', details: { data: json({ seq: Number(activityId), attempt, activity_id: activityId, activity_type: 'runNoop' }), result: json({}) } },
  });
const pending = (p: object) => temporal.api.workflow.v1.PendingActivityInfo.fromObject(p);
const ts = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

describe('attempt counts', () => {
  it('activityAttempts: the attempt the last start of that activity recorded, not another activity\'s', () => {
    const events = [scheduled(5, 'reserve'), started(6, 5, 3), scheduled(8, 'capture'), started(9, 8, 1)];
    assert.equal(activityAttempts(events, 'reserve'), 3);
    assert.equal(activityAttempts(events, 'capture'), 1);
    assert.equal(activityAttempts(events, 'release'), 0);
  });

  it('activityAttempts: a local activity\'s attempts, from its marker', () => {
    const events = [marker(5, '1', 2), marker(9, '2', 4)];
    assert.equal(activityAttempts(events, '1'), 2);
    assert.equal(activityAttempts(events, '2'), 4);
    assert.equal(activityAttempts(events, '3'), 0);
  });

  it('attemptsInTail: the failing activity\'s attempts for a failed job, not those of the hand-off after it', () => {
    const failed = event({ eventId: 20, workflowExecutionFailedEventAttributes: { failure: { activityFailureInfo: { startedEventId: 6 } } } });
    const tail = [failed, started(18, 17, 1), scheduled(17, 'handOffToDeadLetter'), started(6, 5, 5), scheduled(5, 'send')];
    assert.equal(attemptsEventId(tail), 6);
    assert.equal(attemptsInTail(tail), 5);
    assert.equal(attemptsInTail([started(9, 8, 2), scheduled(8, 'send')]), 2, 'otherwise the newest start');
  });

  it('attemptsInTail: the newest local activity marker when no activity task ran, else 0', () => {
    assert.equal(attemptsInTail([marker(9, '2', 3), marker(5, '1', 1)]), 3);
    assert.equal(attemptsInTail([event({ eventId: 1, workflowExecutionStartedEventAttributes: {} })]), 0);
  });

  it('pendingAttemptsBegun: the current attempt while it runs, one fewer while it waits out its retry delay', () => {
    assert.equal(pendingAttemptsBegun(pending({ attempt: 3, state: 2, lastStartedTime: ts(2000), lastAttemptCompleteTime: ts(1000) })), 3);
    assert.equal(pendingAttemptsBegun(pending({ attempt: 3, state: 2, lastStartedTime: ts(1000), lastAttemptCompleteTime: ts(2000) })), 2, 'a completion newer than the start: waiting');
    assert.equal(pendingAttemptsBegun(pending({ attempt: 3, state: 1 })), 2, 'scheduled: waiting');
  });
});
