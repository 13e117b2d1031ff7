import { ErrorType } from '../workflow-kit';
import { retrySchedule } from '../workflow-kit';
import { defineJob } from '../workflow-kit';
import { withFormerNames } from './former-error-types';
import type { SyncDataPayload } from './payloads/sync-data';

export type { SyncDataPayload } from './payloads/sync-data';
export { isSyncPageSize, maxSyncPageSize } from './sync-page-size';

/**
 * The `sync-data` job type's own error types, in its own namespace (until 0.3 in the library's
 * `jobs:`, {@link withFormerNames}): stored in histories and matched by its presets, so never renamed in place.
 */
export const SyncDataErrorType = {
  /** The sync source refused the request (a 4xx other than 429): never retried. */
  SyncRejected: 'sync-data:sync-rejected',
  /** The sync source is busy or down (429, 5xx, network): retried, after its Retry-After if it sent one. */
  SyncUnavailable: 'sync-data:sync-unavailable',
  /** The sync source answered with data that fails its schema: never retried. */
  SyncInvalidData: 'sync-data:sync-invalid-data',
  /** SYNC_SOURCE_URL is missing or malformed on the worker: the job waits for it, consuming no attempt (the library's {@link ErrorType.MissingConfig}). */
  MissingConfig: ErrorType.MissingConfig,
} as const;

/** Pages per run when the payload gives no `pagesPerRun`. */
export const defaultPagesPerRun = 500;

/**
 * Why a `sync-data` job finished: `exhausted` (the source answered `nextCursor: null`),
 * `max-pages` (it synced `maxPages` pages) or `stopped` (someone sent `requestStopSignal`).
 */
export type SyncFinish = 'exhausted' | 'max-pages' | 'stopped';

/** What a `sync-data` job returns. */
export interface SyncDataResult {
  /** The payload's source. */
  source: string;
  /** Pages synced, across every run of the job. */
  pages: number;
  /** Records written (inserted, or updated because not older than the stored copy), across every run. */
  records: number;
  /** Workflow runs the job took (1 when it never continued as new). */
  runs: number;
  /** Why it finished. */
  finished: SyncFinish;
  /** The cursor the next page would start from; null when the source is exhausted. */
  nextCursor: string | null;
  /** The reason given with `requestStopSignal`, when `finished` is `stopped`. */
  stopReason?: string;
}

/** The `sync-data` job type. */
export const syncDataJob = defineJob({
  type: 'sync-data',
  workflowType: 'syncDataWorkflow',
  description: 'Pull a record set page by page from SYNC_SOURCE_URL and upsert it into sync_records',
  presets: {
    /** One page: fetch, validate, upsert and checkpoint. */
    page: {
      // A Retry-After from the source replaces the step of this schedule for that attempt.
      retry: retrySchedule('1s', '5s', '30s', '2m', '5m', '15m', '30m'),
      nonRetryableErrorTypes: withFormerNames([SyncDataErrorType.SyncRejected, SyncDataErrorType.SyncInvalidData, ErrorType.InvalidPayload]),
      // Heartbeats while fetching, so a cancellation aborts the request and a dead worker is noticed in 10s.
      timeouts: { startToClose: '1m', heartbeat: '10s' },
    },
  },
  mainPreset: 'page',
  steps: ['sync'],
  summary: (payload: SyncDataPayload) => `sync ${payload.source}`,
  // The source's token is shown nowhere (jobctl, the console, records, DLQ entries, failure messages).
  sensitive: ['sourceToken'],
  // Shared fairly between sources: one source's import of thousands of jobs does not hold back the others'.
  fairness: (payload: SyncDataPayload) => ({ key: payload.source }),
});
