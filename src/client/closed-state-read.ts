// A closed job's final state when it wrote no memo for it (protocol 3): a failed job's from the
// input of its hand-off to the DLQ, a completed job's from its start's outline and the header of
// its last step, by the function its workflow checked it with (src/workflow-kit/closed-state.ts).
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { outlineFromMemo } from '../catalog/job-outline';
import { readJobHeader } from '../shared/job-header';
import { bareActivityType } from '../shared/library-activities';
import { completedState, type ScheduledStep } from '../workflow-kit/closed-state';
import type { JobState } from '../workflow-kit/job-state';
import { jobStateMemoKey } from '../workflow-kit/job-state-names';
import { decodePayload, type PayloadDecoding } from './decode';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What the reads below use of a job's description. */
interface ClosedJob {
  status: { name: string };
  memo?: Record<string, unknown>;
}

/** Whether the record derives the job's final state from its last step: its history's tail must reach that step's scheduled event. */
export function needsLastStep(job: ClosedJob): boolean {
  return job.status.name === 'COMPLETED' && job.memo?.[jobStateMemoKey] === undefined && outlineFromMemo(job.memo) !== undefined;
}

/** The newest step scheduled in a tail (newest event first), as its activity's job header names it. */
export function lastStepIn(tail: HistoryEvent[]): ScheduledStep | undefined {
  for (const e of tail) {
    const header = readJobHeader(e.activityTaskScheduledEventAttributes?.header?.fields as Record<string, Payload> | null | undefined ?? undefined);
    if (header?.step !== undefined) return { step: header.step, ...(header.preset !== undefined ? { preset: header.preset } : {}) };
  }
  return undefined;
}

/** The final state of a closed job that wrote none in its memo, when its history holds it; else undefined. */
export async function stateAtClose(job: ClosedJob, tail: HistoryEvent[], decoding: PayloadDecoding): Promise<JobState | undefined> {
  if (job.memo?.[jobStateMemoKey] !== undefined) return undefined;
  if (job.status.name === 'COMPLETED') {
    const outline = outlineFromMemo(job.memo);
    return outline && completedState(outline, lastStepIn(tail));
  }
  if (job.status.name !== 'FAILED') return undefined;
  const handOff = tail.find((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return typeof name === 'string' && bareActivityType(name) === 'handOffToDeadLetter';
  });
  const input = handOff?.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
  if (!input) return undefined;
  try {
    const decoded = (await decodePayload(decoding, input as Payload)) as { state?: unknown } | null;
    const state = decoded?.state;
    return typeof state === 'object' && state !== null ? (state as JobState) : undefined;
  } catch {
    // A key this reader lacks: the record goes without the job's own report, as for a job before protocol 3.
    return undefined;
  }
}
