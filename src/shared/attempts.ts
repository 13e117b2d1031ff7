// Attempt counts, read from what Temporal records of an activity: its pending info while the job
// runs, the activity-task events of a run's history, or, for a local activity, the marker the SDK
// core records for it. The one place that reads them: the job record (src/client/job-record.ts),
// the history reader that fetches just enough of a run for it (src/client/history.ts) and the DLQ
// hand-off (src/activity-kit/dead-letter.ts) all call these.
import type { temporal } from '@temporalio/proto';
import { optionalTsToMs } from './sdk-internals';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
type ProtoFailure = temporal.api.failure.v1.IFailure;

/** The marker name the SDK core records for each local activity result. */
const localActivityMarkerName = 'core_local_activity';

/**
 * Whether the pending activity's current attempt is running, as opposed to waiting out a retry
 * delay. Servers report the wait differently (SCHEDULED, or a completion newer than the last start),
 * so both are checked.
 */
export function isAttemptRunning(pending: PendingActivity): boolean {
  const state = pending.state as unknown;
  if (state !== 2 && state !== 'PENDING_ACTIVITY_STATE_STARTED') return false;
  const started = optionalTsToMs(pending.lastStartedTime);
  const completed = optionalTsToMs(pending.lastAttemptCompleteTime);
  return started === undefined || completed === undefined || started > completed;
}

/** Attempts a pending activity has begun: its current one, unless that one is still waiting to start. */
export function pendingAttemptsBegun(pending: PendingActivity): number {
  const attempt = pending.attempt ?? 1;
  return isAttemptRunning(pending) ? attempt : attempt - 1;
}

/**
 * The event ID of the activity start that a job's attempts come from, in the tail of a run's
 * history (newest event first): for a failed job, the start of the activity whose failure failed it
 * (not a compensation or the dead-letter hand-off after it); otherwise the newest activity start.
 * `undefined` when `tail` does not reach it yet.
 */
export function attemptsEventId(tail: HistoryEvent[]): number | undefined {
  const failedBy = tail[0]?.workflowExecutionFailedEventAttributes?.failure?.activityFailureInfo?.startedEventId;
  if (failedBy) return Number(failedBy);
  const started = tail.find((e) => e.activityTaskStartedEventAttributes);
  return started ? Number(started.eventId) : undefined;
}

/**
 * Attempts of a job's latest (or failing) activity, read from the tail of its run's history
 * (newest event first): the attempt its start recorded (see {@link attemptsEventId}), else that of
 * the newest local activity's marker, else 0.
 */
export function attemptsInTail(tail: HistoryEvent[]): number {
  const id = attemptsEventId(tail);
  if (id === undefined) {
    const newest = tail.find((e) => e.markerRecordedEventAttributes?.markerName === localActivityMarkerName);
    return (newest && localActivityMarker(newest)?.attempt) ?? 0;
  }
  return tail.find((e) => Number(e.eventId) === id)?.activityTaskStartedEventAttributes?.attempt ?? 0;
}

/**
 * The failure the newest local activity marker records, in the tail of a run's history (newest
 * event first): set when that local activity's latest attempt failed.
 */
export function localActivityFailure(tail: HistoryEvent[]): ProtoFailure | undefined {
  const newest = tail.find((e) => e.markerRecordedEventAttributes?.markerName === localActivityMarkerName);
  return newest?.markerRecordedEventAttributes?.failure ?? undefined;
}

/**
 * Whether a local activity waits out a retry delay: its newest attempt failed, and a timer started
 * after that attempt's marker (each retry waits in one; see src/workflow-kit/job-activities.ts) has not
 * fired yet. Temporal keeps no pending record of a local activity, so this is read from the history.
 */
export function isLocalRetryWaiting(tail: HistoryEvent[]): boolean {
  const ended = new Set<number>();
  for (const e of tail) {
    if (e.markerRecordedEventAttributes?.markerName === localActivityMarkerName) return false;
    const endedTimer = e.timerFiredEventAttributes?.startedEventId ?? e.timerCanceledEventAttributes?.startedEventId;
    if (endedTimer !== undefined && endedTimer !== null) ended.add(Number(endedTimer));
    if (e.timerStartedEventAttributes && !ended.has(Number(e.eventId))) return localActivityFailure(tail) !== undefined;
  }
  return false;
}

/**
 * Attempts of the activity with this ID in a run's history (oldest event first): the attempt its
 * last start recorded, or for a local activity its last marker's; 0 when neither is there.
 */
export function activityAttempts(events: HistoryEvent[], activityId: string): number {
  let scheduledEventId: number | undefined;
  let attempts = 0;
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes?.activityId === activityId) scheduledEventId = Number(e.eventId);
    const started = e.activityTaskStartedEventAttributes;
    if (started && Number(started.scheduledEventId) === scheduledEventId) attempts = started.attempt ?? attempts;
    const marker = localActivityMarker(e);
    if (marker?.activityId === activityId && marker.attempt !== undefined) attempts = marker.attempt;
  }
  return attempts;
}

/**
 * What a local activity's marker says of it: its activity ID, type and attempt. `undefined` for any
 * other event, or a marker this code cannot read (its data is the core's LocalActivityMarkerData, as JSON).
 */
export function localActivityMarker(event: HistoryEvent): { activityId?: string; activityType?: string; attempt?: number } | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== localActivityMarkerName) return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { attempt?: unknown; activity_id?: unknown; activity_type?: unknown };
    return {
      activityId: typeof parsed.activity_id === 'string' ? parsed.activity_id : undefined,
      activityType: typeof parsed.activity_type === 'string' ? parsed.activity_type : undefined,
      attempt: typeof parsed.attempt === 'number' ? parsed.attempt : undefined,
    };
  } catch {
    return undefined;
  }
}
