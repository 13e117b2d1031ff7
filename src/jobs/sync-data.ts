import { z } from 'zod';
import { ErrorType } from '../shared/errors';
import { schedule } from '../shared/retry';
import { defineJob } from './definition';

/** Largest page a `sync-data` job asks its source for. */
export const maxSyncPageSize = 1000;

/** A page size: an integer from 1 to {@link maxSyncPageSize}. */
export const syncPageSize = z
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(maxSyncPageSize, `must be at most ${maxSyncPageSize}`);

/** Payload of a `sync-data` job. */
export const syncDataPayload = z
  .object({
    /** The record set to pull, as the source names it; also the `source` column of `sync_records`. */
    source: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be 1 to 64 characters of a-z, 0-9 and -'),
    /** Records asked for per page. @defaultValue 100 */
    pageSize: syncPageSize.default(100),
    /** Stop after this many pages in all, even if the source has more. @defaultValue no cap */
    maxPages: z.number().int('must be an integer').min(1, 'must be at least 1').optional(),
    /**
     * Pages one workflow run syncs before it continues as new, which keeps its history bounded.
     * It continues earlier when Temporal suggests it. Lower it only to exercise the hand-over.
     * @defaultValue 500
     */
    pagesPerRun: z.number().int('must be an integer').min(1, 'must be at least 1').max(10_000, 'must be at most 10000').optional(),
  })
  .strict();

/** A validated `sync-data` payload. */
export type SyncDataPayload = z.infer<typeof syncDataPayload>;

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
  payload: syncDataPayload,
  presets: {
    /** One page: fetch, validate, upsert and checkpoint. */
    page: {
      // A Retry-After from the source replaces the step of this schedule for that attempt.
      retry: schedule('1s', '5s', '30s', '2m', '5m', '15m', '30m'),
      nonRetryableErrorTypes: [ErrorType.SyncRejected, ErrorType.SyncInvalidData, ErrorType.InvalidPayload],
      // Heartbeats while fetching, so a cancellation aborts the request and a dead worker is noticed in 10s.
      timeouts: { startToClose: '1m', heartbeat: '10s' },
    },
  },
  mainPreset: 'page',
  steps: ['sync'],
  summary: (payload) => `sync ${payload.source}`,
});
