// What a redrive and a discard do to a DLQ entry, as pure functions of the state: the DLQ workflow
// applies them as its updates run, and a client folding the workflow's history (reads that need
// no worker, src/client/dead-letter-history.ts) applies them to the same events, to the same end.
import { mergePatch } from '../shared/merge-patch';
import { appendAudit, type AuditRecord, type DeadLetterEntry, type DeadLetterState } from './dead-letter-entries';

/** Who acted and why, as a redrive or a discard names them. */
export interface Operator {
  reason?: string;
  by?: string;
}

/**
 * The record with who acted, when the operation said. Data only (no command), so histories from
 * before `by` existed replay unchanged: their updates carry none, and their records stay as they were.
 */
function actedBy(record: AuditRecord, by: string | undefined): AuditRecord {
  return by === undefined ? record : { ...record, by };
}

/** Marks a dead-lettered entry discarded, with the reason in its audit trail. */
export function discardEntry(entry: DeadLetterEntry, { reason, by }: Operator, at: string): DeadLetterEntry {
  entry.status = 'discarded';
  entry.audit = appendAudit(entry.audit, actedBy({ at, action: 'discard', result: 'discarded', detail: reason }, by));
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
  const record: AuditRecord = { at, action: 'redrive', result: `started run ${input.runId}`, detail: input.reason };
  if (input.patch !== undefined) record.patch = input.patch;
  current.audit = appendAudit(current.audit, actedBy(record, input.by));
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
  entry.audit = appendAudit(entry.audit, actedBy({ at, action: 'redrive', result: `failed: ${message}`, detail: reason }, by));
}

/**
 * A redrive in flight when a run ended cannot be (the run waits for its handlers before continuing
 * as new): an entry still `redriving` in the carried state is dead-lettered again, so that the
 * operator may retry it.
 */
export function releaseStaleRedrives(state: DeadLetterState): void {
  for (const entry of Object.values(state.entries)) if (entry.status === 'redriving') entry.status = 'dead-lettered';
}
