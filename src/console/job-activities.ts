// The activities of a job's latest run, read from its history (and, for the one in flight, its
// pending-activity info): type, attempts, the last failure Temporal kept, and the outcome.
// Temporal keeps only the last failure of a retried activity; earlier attempts' errors are gone.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { decodeFailureMessages } from '../client/decode';
import { toJobError, type JobError } from '../client/job-record';
import { isAttemptRunning, localActivityMarker, pendingAttemptsBegun } from '../shared/attempts';
import { optionalTsToMs } from '../shared/sdk-internals';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
type ProtoFailure = temporal.api.failure.v1.IFailure;

/** How an activity ended, or where it is. */
export type ActivityOutcomeName = 'completed' | 'failed' | 'timed-out' | 'cancelled' | 'running' | 'retrying' | 'scheduled';

/** One activity of a run. */
export interface ActivityOutcome {
  activityId: string;
  /** The activity's name, e.g. `sendEmail`. */
  activityType: string;
  /** Whether it ran as a local activity (recorded as a marker, not as activity tasks). */
  local: boolean;
  /** Attempts begun. */
  attempts: number;
  outcome: ActivityOutcomeName;
  /** The last failure Temporal kept: the final attempt's if it failed, else the attempt before the latest. */
  lastFailure?: JobError;
  /** When it was scheduled (or, for a local activity, recorded). */
  at?: string;
}

/** What {@link readJobActivities} found. */
export interface JobActivities {
  /** The latest run, whose history was read. */
  runId: string;
  activities: ActivityOutcome[];
  /** Set when the run's history is longer than what was read ({@link maxEvents}). */
  truncated: boolean;
}

/** Events read of a run at most, so a long history costs a bounded read. */
export const maxEvents = 5000;

const iso = (ts: HistoryEvent['eventTime']) => {
  const ms = optionalTsToMs(ts);
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

const errorOf = (failure: ProtoFailure | null | undefined) => (failure ? toJobError(failure) : undefined);

/**
 * The activities a run's events (oldest first) record, in the order they were scheduled; those
 * still in flight take their attempts and last failure from `pending` (describe's report).
 */
export function activitiesOf(events: HistoryEvent[], pending: PendingActivity[] = []): ActivityOutcome[] {
  const byEvent = new Map<number, ActivityOutcome>();
  const rows: ActivityOutcome[] = [];
  const local = new Map<string, ActivityOutcome>();
  const of = (scheduledEventId: unknown) => byEvent.get(Number(scheduledEventId));
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const row: ActivityOutcome = { activityId: scheduled.activityId ?? '', activityType: scheduled.activityType?.name ?? '', local: false, attempts: 0, outcome: 'scheduled', at: iso(e.eventTime) };
      byEvent.set(Number(e.eventId), row);
      rows.push(row);
      continue;
    }
    const started = e.activityTaskStartedEventAttributes;
    const row = of(started?.scheduledEventId ?? e.activityTaskCompletedEventAttributes?.scheduledEventId ?? e.activityTaskFailedEventAttributes?.scheduledEventId ?? e.activityTaskTimedOutEventAttributes?.scheduledEventId ?? e.activityTaskCanceledEventAttributes?.scheduledEventId);
    if (row) {
      if (started) Object.assign(row, { attempts: started.attempt ?? row.attempts, outcome: 'running', lastFailure: errorOf(started.lastFailure) ?? row.lastFailure });
      if (e.activityTaskCompletedEventAttributes) row.outcome = 'completed';
      if (e.activityTaskFailedEventAttributes) Object.assign(row, { outcome: 'failed', lastFailure: errorOf(e.activityTaskFailedEventAttributes.failure) ?? row.lastFailure });
      if (e.activityTaskTimedOutEventAttributes) Object.assign(row, { outcome: 'timed-out', lastFailure: errorOf(e.activityTaskTimedOutEventAttributes.failure) ?? row.lastFailure });
      if (e.activityTaskCanceledEventAttributes) row.outcome = 'cancelled';
      continue;
    }
    const marker = localActivityMarker(e);
    if (marker) {
      const key = marker.activityId ?? String(e.eventId);
      const failure = e.markerRecordedEventAttributes?.failure;
      let seen = local.get(key);
      if (!seen) {
        seen = { activityId: key, activityType: marker.activityType ?? '', local: true, attempts: 0, outcome: 'completed', at: iso(e.eventTime) };
        local.set(key, seen);
        rows.push(seen);
      }
      // A failed marker is followed by a backoff timer and a new attempt, unless it was the last.
      Object.assign(seen, { attempts: marker.attempt ?? seen.attempts, outcome: failure ? 'failed' : 'completed', lastFailure: errorOf(failure) ?? seen.lastFailure });
    }
  }
  for (const p of pending) {
    const row = rows.find((r) => !r.local && r.activityId === p.activityId && (r.outcome === 'scheduled' || r.outcome === 'running'));
    if (!row) continue;
    row.attempts = pendingAttemptsBegun(p);
    row.lastFailure = errorOf(p.lastFailure) ?? row.lastFailure;
    row.outcome = isAttemptRunning(p) ? 'running' : p.lastFailure ? 'retrying' : 'scheduled';
  }
  return rows;
}

/** The activities of a job's latest run: one describe and its history, read forward up to {@link maxEvents} events. */
export async function readJobActivities(client: Client, id: string): Promise<JobActivities> {
  const description = await client.workflow.getHandle(id).describe();
  const { runId } = description;
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: id, runId },
      maximumPageSize: Math.min(1000, maxEvents - events.length),
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken && events.length < maxEvents);
  const pending = description.raw.pendingActivities ?? [];
  await decodeFailureMessages(client, [
    ...pending.map((p) => p.lastFailure),
    ...events.flatMap((e) => [
      e.activityTaskStartedEventAttributes?.lastFailure,
      e.activityTaskFailedEventAttributes?.failure,
      e.activityTaskTimedOutEventAttributes?.failure,
      e.markerRecordedEventAttributes?.failure,
    ]),
  ]);
  return { runId, activities: activitiesOf(events, pending), truncated: nextPageToken !== undefined };
}
