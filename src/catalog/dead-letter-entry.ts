// A DLQ entry as every side sees it: what the hand-off activity sends, what the DLQ workflow keeps
// and what the client and the console show. Types only; the workflow's state functions are in
// src/workflow-kit/dead-letter-entries.ts.
import type { TraceCarrier } from '../shared/tracing-env';

/** Where a DLQ entry is. A job in the DLQ is `dead-lettered`; the other two remember what was done. */
export type DeadLetterStatus = 'dead-lettered' | 'redriving' | 'redriven' | 'discarded';

/** One operation on an entry, kept in its audit trail. */
export interface AuditRecord {
  /** When (ISO 8601, workflow time). */
  at: string;
  /** `dead-lettered`, `redrive`, `discard`. */
  action: 'dead-lettered' | 'redrive' | 'discard';
  /** What came of it, e.g. `started run …`, or why it failed. */
  result: string;
  /** The operator's reason, or the error type for `dead-lettered`. */
  detail?: string;
  /** For a patched redrive: the JSON Merge Patch applied to the payload before it. */
  patch?: unknown;
  /** Who acted: the console's signed-in user, or `jobctl`'s OS user (JOBCTL_USER). Unset for `dead-lettered`, and for operations from clients before 0.4. */
  by?: string;
  /** The update ID of the call that did it, for a retry of that call to find (unset before 0.3). */
  requestId?: string;
}

/** A failed job, as the hand-off activity reports it to the DLQ. */
export interface DeadLetterInput {
  id: string;
  type: string;
  /** The failing run; a repeated hand-off of the same run is recognised and ignored. */
  runId: string;
  payload: unknown;
  /** Attempts of the step that failed, in this run. */
  attempts: number;
  /** When the job failed (ISO 8601). */
  failedAt: string;
  error: { type?: string; message: string };
  /** Short hash of the error type and normalised message. */
  fingerprint: string;
  /** The error type and normalised message the fingerprint was made from. */
  fingerprintText: string;
  /** When the job was first enqueued (ISO 8601), redrives included. Unset in hand-offs from before 0.3. */
  createdAt?: string;
  /** The payload's sensitive fields (the job type's `sensitive`), masked wherever the entry is shown. Unset when none, and from workers before 0.3. */
  sensitive?: string[];
  /**
   * The W3C trace context of the failed run's hand-off, when the worker traced it: a redrive
   * starts its run linked to it. Unset when tracing is off.
   */
  traceContext?: TraceCarrier;
}

/** A job in (or once in) the DLQ, with everything needed to inspect and redrive it. */
export interface DeadLetterEntry extends Omit<DeadLetterInput, 'runId' | 'failedAt'> {
  status: DeadLetterStatus;
  /** The run that failed last. */
  lastRunId: string;
  /** Attempts across every run of the job, earlier redrives included. */
  attempts: number;
  /** Times the job has failed for good (1, plus one per redrive that failed again). */
  failures: number;
  firstFailedAt: string;
  lastFailedAt: string;
  /** Every operation, oldest first (the newest 50 are kept: auditLimit in src/workflow-kit/dead-letter-entries.ts). */
  audit: AuditRecord[];
}
