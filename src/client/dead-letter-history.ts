// A DLQ shard's state read from its workflow's history, with no worker: the server keeps the
// history whatever runs, and the state is a fold of it. The run starts with the entries its
// previous run carried (packed), then signals bring failed jobs and accepted updates discard or
// redrive them; the same pure functions the workflow applies (dead-letter-entries.ts,
// dead-letter-operations.ts) apply them here, so a read finds what the workflow holds, and also
// the hand-offs a stopped worker has not applied yet. docs/guarantees.md says why not a query.
import type { Client } from '@temporalio/client';
import type { DeadLetterBatch, DeadLetterWorkflowInput, DiscardInput, RedriveInput, RedriveResult } from '../workflow-kit/dead-letter';
import { applyDeadLetter, type DeadLetterEntry, type DeadLetterInput, type DeadLetterState } from '../workflow-kit/dead-letter-entries';
import { completeRedrive, discardEntry, failRedrive, redriveFailureReason, releaseStaleRedrives, repeatOf } from '../workflow-kit/dead-letter-operations';
import { unpackState } from '../workflow-kit/packed-state';
import { isMissingWorkflow } from './dead-letter-calls';
import { decodeFailureMessages, decodePayload, decodingOf, type PayloadDecoding } from './decode';
import type { HistoryEvent } from './history';

type Payloads = { payloads?: Parameters<typeof decodePayload>[1][] | null } | null | undefined;

/** A redrive accepted and not yet completed: the entry it holds and what it asked. */
interface PendingRedrive {
  entry: DeadLetterEntry;
  input: RedriveInput;
}

/** An event's time in ms: its seconds are a Long from the service, a number or string from JSON. */
function eventTimeMs(event: HistoryEvent): number {
  const seconds: unknown = event.eventTime?.seconds ?? 0;
  const whole = typeof seconds === 'object' && seconds !== null && 'toNumber' in seconds ? (seconds as { toNumber(): number }).toNumber() : Number(seconds);
  return whole * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
}

/**
 * The state of the DLQ workflow `workflowId` (its latest run), from its history; undefined when it
 * was never started. Applies hand-offs recorded but not yet applied by a worker, so with every
 * worker stopped a read still finds every failed job.
 */
export async function readDeadLetterState(client: Client, workflowId: string): Promise<DeadLetterState | undefined> {
  let events: HistoryEvent[];
  try {
    events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  } catch (err) {
    if (isMissingWorkflow(err)) return undefined;
    throw err;
  }
  return foldDeadLetterHistory(events, decodingOf(client));
}

/** The state one run's history of a DLQ workflow leads to (payloads decoded with `decoding`). */
export async function foldDeadLetterHistory(events: readonly HistoryEvent[], decoding: PayloadDecoding): Promise<DeadLetterState> {
  const decode = async (from: Payloads, index = 0): Promise<unknown> => {
    const payload = from?.payloads?.[index];
    return payload ? decodePayload(decoding, payload) : undefined;
  };
  const state: DeadLetterState = { entries: {} };
  const redrives = new Map<string, PendingRedrive>();
  // Workflow time, as the workflow stamps its audit records: the start of the task it runs in.
  let at = '';
  for (const event of events) {
    if (event.workflowTaskStartedEventAttributes || at === '') at = new Date(eventTimeMs(event)).toISOString();
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = (await decode(started.input, 0)) as DeadLetterWorkflowInput | undefined;
      const packed = (await decode(started.input, 1)) as Uint8Array | undefined;
      state.entries = packed ? unpackState<DeadLetterState['entries']>(packed) : (input?.entries ?? {});
      releaseStaleRedrives(state);
      continue;
    }
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === 'deadLetter') applyDeadLetter(state, (await decode(signal.input)) as DeadLetterInput);
    else if (signal?.signalName === 'deadLetters') for (const entry of ((await decode(signal.input)) as DeadLetterBatch).entries) applyDeadLetter(state, entry);
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted) {
      const request = accepted.acceptedRequest?.input;
      const args = await decode(request?.args);
      // The workflow's validator accepted it: the entry was dead-lettered then.
      if (request?.name === 'discard') {
        const input = args as DiscardInput;
        const entry = state.entries[input.id];
        if (entry && !repeatOf(entry, 'discard', input.requestId)) discardEntry(entry, input, at);
      } else if (request?.name === 'redrive') {
        const input = args as RedriveInput;
        const entry = state.entries[input.id];
        // A retry answered from the record of the call it repeats (repeatOf) changed nothing.
        if (entry && !repeatOf(entry, 'redrive', input.requestId)) {
          entry.status = 'redriving';
          redrives.set(accepted.protocolInstanceId ?? '', { entry, input });
        }
      }
    }
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    const pending = completed ? redrives.get(completed.meta?.updateId ?? '') : undefined;
    if (completed && pending) {
      redrives.delete(completed.meta?.updateId ?? '');
      const { entry, input } = pending;
      if (completed.outcome?.failure) {
        await decodeFailureMessages(decoding, [completed.outcome.failure]);
        failRedrive(entry, redriveFailureReason(input.id, completed.outcome.failure.message ?? ''), input, at);
      } else {
        const { runId } = (await decode(completed.outcome?.success)) as RedriveResult;
        completeRedrive(state, entry, { ...input, patch: input.auditPatch ?? input.patch, runId }, at);
      }
    }
  }
  return state;
}
