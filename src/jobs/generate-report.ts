import { ErrorType } from '../workflow-kit';
import { exponentialRetry, retrySchedule } from '../workflow-kit';
import { defineJob } from '../workflow-kit';
import { withFormerNames } from './former-error-types';
import type { GenerateReportPayload } from './payloads/generate-report';

export type { GenerateReportPayload } from './payloads/generate-report';

/**
 * The `generate-report` job type's own error types, in its own namespace (until 0.3 in the library's
 * `jobs:`, {@link withFormerNames}): stored in histories and matched by its presets, so never renamed in place.
 */
export const GenerateReportErrorType = {
  /** The reports directory cannot be written (permission, not a directory, read-only): never retried. */
  ReportFailed: 'generate-report:report-failed',
} as const;

/** What a `generate-report` job returns. */
export interface GenerateReportResult {
  /** Path of the finished report. */
  path: string;
  /** Its format. */
  format: GenerateReportPayload['format'];
  /** Account-and-currency rows in the report. */
  rows: number;
  /** Ledger entries aggregated into it. */
  entries: number;
  /** True when the report was already under its final name, so this run wrote nothing. */
  alreadyExisted: boolean;
}

/** The `generate-report` job type. */
export const generateReportJob = defineJob({
  type: 'generate-report',
  workflowType: 'generateReportWorkflow',
  description: 'Aggregate ledger entries per account and currency over a period into a CSV or JSON file',
  presets: {
    /**
     * One batch of pages. The heartbeat timeout notices a dead worker in seconds; the retry then
     * resumes from the last heartbeat, so a batch never needs minutes of start-to-close.
     */
    report: {
      retry: retrySchedule('1s', '5s', '30s', '2m'),
      nonRetryableErrorTypes: withFormerNames([ErrorType.InvalidPayload, GenerateReportErrorType.ReportFailed]),
      timeouts: { startToClose: '5m', heartbeat: '10s' },
    },
    /** Removing temporary files after a failure or cancellation: best effort, never blocks the failure. */
    cleanup: {
      retry: exponentialRetry({ initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 3 }),
      timeouts: { startToClose: '30s' },
    },
  },
  mainPreset: 'report',
  steps: ['report'],
  summary: (payload: GenerateReportPayload) => `report ${payload.from}..${payload.to} (${payload.format})`,
});
