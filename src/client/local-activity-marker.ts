import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The marker name the SDK core records for each local activity result. */
const localActivityMarkerName = 'core_local_activity';

/**
 * The attempt of the newest local activity in `tail` (newest event first), read from its marker:
 * a job whose definition declares `activity: 'local'` has no activity-task events to count from.
 * `undefined` when the tail holds no such marker (or one this code cannot read).
 */
export function localActivityAttempt(tail: HistoryEvent[]): number | undefined {
  const marker = tail.find((e) => e.markerRecordedEventAttributes?.markerName === localActivityMarkerName)?.markerRecordedEventAttributes;
  const data = marker?.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const attempt = (JSON.parse(Buffer.from(data).toString('utf8')) as { attempt?: unknown }).attempt;
    return typeof attempt === 'number' ? attempt : undefined;
  } catch {
    return undefined;
  }
}
