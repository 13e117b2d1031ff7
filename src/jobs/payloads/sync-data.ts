import { z } from 'zod';
import { maxSyncPageSize } from '../sync-page-size';

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
    /**
     * A bearer token the source wants for this record set, sent as `Authorization: Bearer …`
     * (instead of SYNC_SOURCE_URL's credentials). Sensitive: never shown. @defaultValue none
     */
    sourceToken: z.string().min(8, 'must be at least 8 characters').max(4096, 'must be at most 4096 characters').optional(),
  })
  .strict();

/** A validated `sync-data` payload. */
export type SyncDataPayload = z.infer<typeof syncDataPayload>;
