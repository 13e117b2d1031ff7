// What a job record is made of once its reads are in, whichever transport made them (the SDK's
// gRPC client in job-client.ts, the HTTP API in http/http-job-reader.ts): the one assembly of both.
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { Catalog } from '../catalog/catalog';
import { createdAtOf } from '../catalog/created-at';
import { attemptsEventId } from '../shared/attempts';
import type { JobState } from '../workflow-kit/job-state';
import { decodeFailureMessages, decodePayload, type PayloadDecoding } from './decode';
import { lastStepIn, stateAtClose } from './closed-state-read';
import { toJobRecord, type JobDescription, type JobRecord } from './job-record';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The reads of one job record. */
export interface RecordReads {
  description: JobDescription;
  /** The first run's start event. */
  start: HistoryEvent | undefined;
  /** The latest run's newest events, newest first ({@link readTail}). */
  tail: HistoryEvent[];
  /** What the job reported: its memo or query answer; `unanswered` when no worker answered in time. */
  state: JobState | 'unanswered' | undefined;
}

/** The record of those reads: failure messages and the payload decoded, `workersNotAnswering` when the query went unanswered. */
export async function assembleRecord({ description, start, tail, state }: RecordReads, decoding: PayloadDecoding, catalog?: Pick<Catalog, 'byWorkflowType'>): Promise<JobRecord> {
  const unanswered = state === 'unanswered';
  await decodeFailureMessages(decoding, [
    ...(description.raw.pendingActivities ?? []).map((p) => p.lastFailure),
    ...tail.map((e) => e.workflowExecutionFailedEventAttributes?.failure),
  ]);
  const input = start?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const record = toJobRecord({
    description,
    tail,
    payload: input ? await decodePayload(decoding, input as Payload) : undefined,
    createdAt: createdAtOf(description, start),
    state: unanswered ? undefined : (state ?? (await stateAtClose(description, tail, decoding))),
    now: new Date(),
    catalog,
  });
  return unanswered ? { ...record, workersNotAnswering: true } : record;
}

/** Events read per page from the end of a history. */
export const tailPageSize = 100;

/**
 * The newest events of a run, newest first, read backwards page by page (`readPage` reads one
 * page of the reverse history) only until they reach the activity start that the job record's
 * attempts come from, and with `toLastStep` the scheduled event of the job's last step
 * (`needsLastStep` in closed-state-read.ts), so a long history is not fetched whole.
 */
export async function readTail<Token>(readPage: (token: Token | undefined) => Promise<{ events: HistoryEvent[]; next: Token | undefined }>, toLastStep = false): Promise<HistoryEvent[]> {
  const tail: HistoryEvent[] = [];
  let token: Token | undefined;
  do {
    const page = await readPage(token);
    tail.push(...page.events);
    token = page.next;
    const wanted = attemptsEventId(tail);
    const attemptsIn = wanted !== undefined && tail.some((e) => Number(e.eventId) === wanted);
    if (attemptsIn && (!toLastStep || lastStepIn(tail) !== undefined)) break;
  } while (token !== undefined);
  return tail;
}
