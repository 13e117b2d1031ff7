// What a redrive and a discard do to a DLQ entry, as pure functions of the state: the DLQ workflow
// applies them as its updates run, and a client folding the workflow's history (reads that need
// no worker, src/client/dead-letter-history.ts) applies them to the same events, to the same end.
import { mergePatch } from '../shared/merge-patch';
import { appendAudit, type AuditRecord, type DeadLetterEntry, type DeadLetterState } from './dead-letter-entries';

/** Who acted and why, as a redrive or a discard names them, and the call that asked. */
export interface Operator {
  /** Why, for the audit trail. */
  reason?: string;
  /** Who acts, for the audit trail. @defaultValue unrecorded */
  by?: string;
  /**
   * The update ID of the call (one across its retries): kept in the audit record, so that a retry
   * that reaches the next run (the DLQ continued as new after it applied the first, whose answer was
   * lost) gets that answer instead of "not dead-lettered". Unset from clients before 0.3.
   */
  requestId?: string;
}

/**
 * The record with who acted, when the operation said. Data only (no command), so histories from
 * before `by` existed replay unchanged: their updates carry none, and their records stay as they were.
 */
function actedBy(record: AuditRecord, { by, requestId }: Operator): AuditRecord {
  return { ...record, ...(by === undefined ? {} : { by }), ...(requestId === undefined ? {} : { requestId }) };
}

/** The result a redrive's audit record gives, before the run it started. */
const startedRun = 'started run ';

/**
 * The audit record of the operation that call `requestId` already applied to the entry, if it did:
 * the call is a retry, answered from the record. Data only, so histories without request IDs
 * replay as they ran.
 */
export function repeatOf(entry: DeadLetterEntry | undefined, action: 'redrive' | 'discard', requestId: string | undefined): AuditRecord | undefined {
  if (entry === undefined || requestId === undefined) return undefined;
  for (let i = entry.audit.length - 1; i >= 0; i--) {
    const record = entry.audit[i]!;
    if (record.requestId === requestId && record.action === action) return record;
  }
  return undefined;
}

/** The run a redrive's audit record says it started. */
export function redrivenRunId(record: AuditRecord): string {
  return record.result.slice(startedRun.length);
}

/** Marks a dead-lettered entry discarded, with the reason in its audit trail. */
export function discardEntry(entry: DeadLetterEntry, operator: Operator, at: string): DeadLetterEntry {
  entry.status = 'discarded';
  entry.audit = appendAudit(entry.audit, actedBy({ at, action: 'discard', result: 'discarded', detail: operator.reason }, operator));
  return entry;
}

/** The payload a redrive starts the job with: the entry's own, or patched. */
export function redrivePayload(entry: DeadLetterEntry, patch: unknown): unknown {
  return patch === undefined ? entry.payload : mergePatch(entry.payload, patch);
}

/**
 * Records a redrive that started run `runId`: the entry is `redriven`, and keeps the payload it
 * failed with (the audit record has the patch, if any: {@link redrivePayload} of the two is what the
 * redrive started), unless the restarted job already failed again and its new entry replaced this
 * one (which then keeps the record). Entries redriven before 0.3 hold the patched payload instead.
 */
export function completeRedrive(state: DeadLetterState, entry: DeadLetterEntry, input: Operator & { patch?: unknown; runId: string }, at: string): void {
  const current = state.entries[entry.id] ?? entry;
  if (current === entry) entry.status = 'redriven';
  const record: AuditRecord = { at, action: 'redrive', result: `${startedRun}${input.runId}`, detail: input.reason };
  if (input.patch !== undefined) record.patch = input.patch;
  current.audit = appendAudit(current.audit, actedBy(record, input));
}

/** The message of a failed redrive's update: `why` follows a prefix naming the job. */
export function redriveFailureMessage(id: string, why: string): string {
  return `redrive of ${id} failed: ${why}`;
}

/** The `why` of a failed redrive, from its update's failure message. */
export function redriveFailureReason(id: string, message: string): string {
  const prefix = redriveFailureMessage(id, '');
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Records a redrive that failed: the entry is dead-lettered again, for the operator to retry. */
export function failRedrive(entry: DeadLetterEntry, message: string, { reason, by }: Operator, at: string): void {
  entry.status = 'dead-lettered';
  // Without the request ID: a retry of a call that failed tries again.
  entry.audit = appendAudit(entry.audit, actedBy({ at, action: 'redrive', result: `failed: ${message}`, detail: reason }, { by }));
}

/**
 * A redrive in flight when a run ended cannot be (the run waits for its handlers before continuing
 * as new): an entry still `redriving` in the carried state is dead-lettered again, so that the
 * operator may retry it.
 */
export function releaseStaleRedrives(state: DeadLetterState): void {
  for (const entry of Object.values(state.entries)) if (entry.status === 'redriving') entry.status = 'dead-lettered';
}
