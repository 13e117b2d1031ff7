// The dead-letter queue's state and the pure functions that change it; the workflow in
// dead-letter.ts owns one of these per job type and applies signals and updates through them.

export type { AuditRecord, DeadLetterEntry, DeadLetterInput, DeadLetterStatus } from '../catalog/dead-letter-entry';
import type { AuditRecord, DeadLetterEntry, DeadLetterInput, DeadLetterStatus } from '../catalog/dead-letter-entry';

/** Audit records kept per entry, newest last. */
export const auditLimit = 50;

/** Longest failure message kept in an entry; the job's own history keeps the whole one. */
export const messageLimit = 1000;

/** The DLQ's state, carried across continue-as-new. */
export interface DeadLetterState {
  entries: Record<string, DeadLetterEntry>;
}

/** Applies a hand-off: a new entry, or a redriven job back with its earlier attempts kept. Idempotent per run. */
export function applyDeadLetter(state: DeadLetterState, input: DeadLetterInput): boolean {
  const existing = state.entries[input.id];
  if (existing?.lastRunId === input.runId) return false;
  const error = { ...input.error, message: input.error.message.slice(0, messageLimit) };
  const createdAt = input.createdAt ?? existing?.createdAt;
  const record: AuditRecord = { at: input.failedAt, action: 'dead-lettered', result: `run ${input.runId} failed after ${input.attempts} attempt(s)`, detail: error.type };
  state.entries[input.id] = {
    id: input.id,
    type: input.type,
    payload: input.payload,
    status: 'dead-lettered',
    lastRunId: input.runId,
    attempts: (existing?.attempts ?? 0) + input.attempts,
    failures: (existing?.failures ?? 0) + 1,
    firstFailedAt: existing?.firstFailedAt ?? input.failedAt,
    lastFailedAt: input.failedAt,
    error,
    fingerprint: input.fingerprint,
    fingerprintText: input.fingerprintText,
    ...(createdAt ? { createdAt } : {}),
    ...(input.traceContext ? { traceContext: input.traceContext } : {}),
    ...(input.sensitive ? { sensitive: input.sensitive } : {}),
    audit: appendAudit(existing?.audit ?? [], record),
  };
  return true;
}

/** Adds an audit record, keeping the newest {@link auditLimit}. */
export function appendAudit(audit: AuditRecord[], record: AuditRecord): AuditRecord[] {
  return [...audit, record].slice(-auditLimit);
}

/** Which entries a list or a bulk operation selects. */
export interface DeadLetterFilter {
  /** @defaultValue `dead-lettered` */
  status?: DeadLetterStatus | 'all';
  fingerprint?: string;
  id?: string;
  /** Only entries whose last failure is at or before this time (ISO 8601): a bulk operation's snapshot. @defaultValue no bound */
  failedBefore?: string;
  /** Only entries whose last failure is at or after this time (ISO 8601). @defaultValue no bound */
  failedAfter?: string;
}

/** Whether an entry is one a filter selects. */
export function matchesFilter(e: DeadLetterEntry, filter: DeadLetterFilter): boolean {
  const status = filter.status ?? 'dead-lettered';
  return (
    (status === 'all' || e.status === status) &&
    (!filter.fingerprint || e.fingerprint === filter.fingerprint) &&
    (!filter.id || e.id === filter.id) &&
    (!filter.failedBefore || e.lastFailedAt <= filter.failedBefore) &&
    (!filter.failedAfter || e.lastFailedAt >= filter.failedAfter)
  );
}

/** The DLQ's one order, oldest failure first, then by job ID: pages and the merge of shards follow it. */
export function compareEntries(a: Pick<DeadLetterEntry, 'lastFailedAt' | 'id'>, b: Pick<DeadLetterEntry, 'lastFailedAt' | 'id'>): number {
  if (a.lastFailedAt !== b.lastFailedAt) return a.lastFailedAt < b.lastFailedAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The entries a filter selects, oldest failure first. */
export function selectEntries(state: DeadLetterState, filter: DeadLetterFilter = {}): DeadLetterEntry[] {
  return Object.values(state.entries)
    .filter((e) => matchesFilter(e, filter))
    .sort(compareEntries);
}

/** One fingerprint's share of the DLQ. */
export interface DeadLetterGroup {
  fingerprint: string;
  fingerprintText: string;
  errorType?: string;
  /** Entries now dead-lettered with this fingerprint. */
  count: number;
  /** A recent message of the group, as it was. */
  sample: string;
  /** The job whose message {@link sample} is: an example to show. Unset from workers before 0.3. */
  exampleId?: string;
  /** The oldest failure of the group's entries. Unset from workers before 0.3. */
  firstFailedAt?: string;
  lastFailedAt: string;
}

/** Dead-lettered entries counted per fingerprint, largest group first. */
export function groupEntries(state: DeadLetterState): DeadLetterGroup[] {
  const groups = new Map<string, DeadLetterGroup>();
  for (const e of selectEntries(state)) {
    const g = groups.get(e.fingerprint);
    if (g) {
      g.count += 1;
      g.sample = e.error.message;
      g.exampleId = e.id;
      g.lastFailedAt = e.lastFailedAt;
    } else {
      groups.set(e.fingerprint, {
        fingerprint: e.fingerprint, fingerprintText: e.fingerprintText, errorType: e.error.type,
        count: 1, sample: e.error.message, exampleId: e.id, firstFailedAt: e.lastFailedAt, lastFailedAt: e.lastFailedAt,
      });
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || (a.fingerprint < b.fingerprint ? -1 : 1));
}

/** Counts of entries by status. */
export function countEntries(state: DeadLetterState): Record<DeadLetterStatus, number> {
  const counts: Record<DeadLetterStatus, number> = { 'dead-lettered': 0, redriving: 0, redriven: 0, discarded: 0 };
  for (const e of Object.values(state.entries)) counts[e.status] += 1;
  return counts;
}

/**
 * Drops entries whose story is over (discarded or redriven) and whose last operation is older
 * than `before`, so a long-lived DLQ's state stays bounded. Dead-lettered entries are never dropped.
 */
export function pruneEntries(state: DeadLetterState, before: string): number {
  let dropped = 0;
  for (const [id, e] of Object.entries(state.entries)) {
    const last = e.audit.at(-1)?.at ?? e.lastFailedAt;
    if ((e.status === 'discarded' || e.status === 'redriven') && last < before) {
      delete state.entries[id];
      dropped += 1;
    }
  }
  return dropped;
}
