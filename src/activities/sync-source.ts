import { redact } from '../worker';
import { z } from 'zod';
import type { Trx } from '../jobs/database/schema';
import { recordedResult, runOnce, type LedgerKey } from '../activity-kit';
import { SyncDataErrorType, maxSyncPageSize } from '../jobs/sync-data';
import { syncDataPayload, syncPageSize } from '../jobs/payloads/sync-data';
import { describeError, formatIssues, issuesFromZod, nonRetryable, retryable } from '../activity-kit';
import { ErrorType } from '../workflow-kit';
import type { ActivityDeps } from './deps';
import { whileHeartbeating } from '../activity-kit';
import { parseRetryAfter } from '../activity-kit';
import { currentJob } from '../activity-kit';

/** Tunables of the sync-source activities, mostly for tests. */
export interface SyncSourceOptions {
  /** Longest one HTTP request may take, in ms; kept under the page preset's 1-minute start-to-close. @defaultValue 20000 */
  requestTimeoutMs?: number;
  /** Longest Retry-After honoured, in ms; a longer one is clamped to it. @defaultValue 3600000 (1 hour) */
  maxRetryAfterMs?: number;
}

/** Input of the `syncPage` activity. The ledger's key is the attempt's job execution (`currentJob`), stable across retries and continue-as-new. */
export interface SyncPageInput {
  /** The record set, as in the payload. */
  source: string;
  /** Where the page starts: a cursor the source returned, or null for the first page. */
  cursor: string | null;
  /** Records to ask for. */
  pageSize: number;
  /** The payload's `sourceToken`, sent as a bearer token. Unset: SYNC_SOURCE_URL's credentials, if any. */
  sourceToken?: string;
}

/** What one page did. */
export interface SyncPageResult {
  /** The cursor of the next page; null when the source has no more. */
  nextCursor: string | null;
  /** Records written: inserted, or updated because the incoming `updatedAt` was not older than the stored one. */
  upserted: number;
  /** Records the page held. */
  received: number;
  /** True when an earlier attempt had committed this page, so this one fetched and wrote nothing. */
  replayed: boolean;
}

/** One record as the source sends it. Unknown fields are ignored, so the source may add some. */
const sourceRecord = z.object({
  id: z.string().min(1).max(255),
  updatedAt: z.iso.datetime({ offset: true }),
  data: z.record(z.string(), z.unknown()),
});

/** One page as the source sends it: `{ records, nextCursor }`. */
export const sourcePage = z.object({
  records: z.array(sourceRecord).max(maxSyncPageSize),
  nextCursor: z.string().min(1).max(1024).nullable(),
});

// A step of 0.2 also carried `jobId` and `execution`, which the job header now gives: left out.
const pageInput = z.object({
  source: syncDataPayload.shape.source,
  cursor: z.string().min(1).nullable(),
  pageSize: syncPageSize,
  sourceToken: syncDataPayload.shape.sourceToken,
});

/** The ledger step of the page that starts at `cursor`; prefixed so that no cursor can collide with `start`. */
export function pageStep(cursor: string | null): string {
  return cursor === null ? 'page:start' : `page:cursor:${cursor}`;
}

/** Builds the `sync-data` activities. */
export function createSyncSourceActivities(deps: ActivityDeps, options: SyncSourceOptions = {}) {
  const requestTimeoutMs = options.requestTimeoutMs ?? 20_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 3_600_000;

  async function fetchPage(baseUrl: string, input: SyncPageInput, cancelled: AbortSignal): Promise<z.infer<typeof sourcePage>> {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch (err) {
      throw retryable(SyncDataErrorType.MissingConfig, `SYNC_SOURCE_URL is not a valid URL: ${redact(baseUrl, [])}`, err);
    }
    // fetch() refuses a URL with credentials: they travel as HTTP Basic auth instead, and never
    // reach an error message (which Temporal stores).
    const headers: Record<string, string> = { accept: 'application/json' };
    if (url.username || url.password) {
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    if (input.sourceToken) headers.authorization = `Bearer ${input.sourceToken}`;
    url.searchParams.set('source', input.source);
    if (input.cursor !== null) url.searchParams.set('cursor', input.cursor);
    url.searchParams.set('limit', String(input.pageSize));
    const where = `${input.source} at ${input.cursor ?? 'start'}`;
    let body: string;
    let response: Response;
    try {
      response = await fetch(url, {
        headers,
        signal: AbortSignal.any([cancelled, AbortSignal.timeout(requestTimeoutMs)]),
      });
      body = await response.text();
    } catch (err) {
      if (cancelled.aborted) throw cancelled.reason;
      throw retryable(SyncDataErrorType.SyncUnavailable, `sync source unreachable for ${where}: ${describeFetchError(err)}`, err);
    }
    if (!response.ok) throw classifyStatus(response, body, where);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (err) {
      throw nonRetryable(SyncDataErrorType.SyncInvalidData, `sync source sent malformed JSON for ${where}: ${describeError(err)}`, err);
    }
    const parsed = sourcePage.safeParse(json);
    if (!parsed.success) {
      throw nonRetryable(SyncDataErrorType.SyncInvalidData, `sync source sent an invalid page for ${where}: ${formatIssues(issuesFromZod(parsed.error, 'response'))}`);
    }
    if (parsed.data.nextCursor !== null && parsed.data.nextCursor === input.cursor) {
      throw nonRetryable(SyncDataErrorType.SyncInvalidData, `sync source returned its own cursor as nextCursor for ${where}, which would loop`);
    }
    return parsed.data;
  }

  function classifyStatus(response: Response, body: string, where: string): Error {
    const { status } = response;
    const message = `sync source answered ${status} for ${where}${body ? `: ${body.slice(0, 200)}` : ''}`;
    if (status === 429 || status === 503) {
      // An HTTP-date is read against the source's own Date header, so clock skew does not shift it.
      const now = Date.parse(response.headers.get('date') ?? '');
      const delayMs = parseRetryAfter(response.headers.get('retry-after'), Number.isNaN(now) ? Date.now() : now);
      // No usable Retry-After: fall back to the preset's schedule (the job interceptor fills it in).
      return retryable(SyncDataErrorType.SyncUnavailable, message, undefined, delayMs === undefined ? undefined : Math.min(delayMs, maxRetryAfterMs));
    }
    if (status >= 500 || status === 408) return retryable(SyncDataErrorType.SyncUnavailable, message);
    return nonRetryable(SyncDataErrorType.SyncRejected, message);
  }

  return {
    /**
     * Syncs one page: fetches it, validates it, and upserts its records together with the page's
     * ledger row in one transaction. A page already in the ledger is neither fetched nor written again.
     */
    syncPage: async (raw: SyncPageInput): Promise<SyncPageResult> => {
      const checked = pageInput.safeParse(raw);
      if (!checked.success) {
        throw nonRetryable(ErrorType.InvalidPayload, `invalid syncPage input: ${formatIssues(issuesFromZod(checked.error, 'input'))}`);
      }
      const input = checked.data;
      const { jobId, execution } = currentJob();
      const key: LedgerKey = { jobId, execution, step: pageStep(input.cursor) };
      const committed = await recordedResult<Omit<SyncPageResult, 'replayed'>>(deps.db, key);
      if (committed) return { ...committed, replayed: true };
      const baseUrl = deps.syncSourceUrl;
      if (!baseUrl) throw retryable(SyncDataErrorType.MissingConfig, 'SYNC_SOURCE_URL is not set on this worker; set it and restart the worker: the job waits for it, consuming no attempt');
      // Heartbeats while it waits on the source, so a cancellation aborts the request (or rolls back the page).
      return whileHeartbeating(async (signal) => {
        const page = await fetchPage(baseUrl, input, signal);
        const { result, replayed } = await runOnce(
          deps.db,
          key,
          async (trx) => ({ nextCursor: page.nextCursor, upserted: await upsertRecords(trx, input.source, jobId, page.records), received: page.records.length }),
          signal,
        );
        return { ...result, replayed };
      });
    },
  };
}

/**
 * Upserts a page's records. A stored record is overwritten only when the incoming `updatedAt` is
 * newer than or equal to its own: equal rewrites the same version (so a replayed page is harmless),
 * older is skipped (so a late, stale page never undoes a newer sync). Timestamps are stored as UTC
 * ISO strings with milliseconds, which compare correctly as text in both databases.
 */
async function upsertRecords(trx: Trx, source: string, jobId: string, records: z.infer<typeof sourceRecord>[]): Promise<number> {
  // The newest of duplicate IDs within one page wins (PostgreSQL refuses to update a row twice in one statement).
  const byId = new Map<string, { source: string; id: string; data: string; job_id: string; updated_at: string }>();
  for (const record of records) {
    const updatedAt = new Date(record.updatedAt).toISOString();
    const seen = byId.get(record.id);
    if (seen && seen.updated_at > updatedAt) continue;
    byId.set(record.id, { source, id: record.id, data: JSON.stringify(record.data), job_id: jobId, updated_at: updatedAt });
  }
  if (byId.size === 0) return 0;
  const result = await trx
    .insertInto('sync_records')
    .values([...byId.values()])
    .onConflict((oc) =>
      oc
        .columns(['source', 'id'])
        .doUpdateSet((eb) => ({ data: eb.ref('excluded.data'), job_id: eb.ref('excluded.job_id'), updated_at: eb.ref('excluded.updated_at') }))
        .where((eb) => eb('sync_records.updated_at', '<=', eb.ref('excluded.updated_at'))),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/** fetch() hides the network error (ECONNREFUSED, timeout) in `cause`. */
function describeFetchError(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'request timed out';
  const cause = err instanceof Error ? err.cause : undefined;
  return cause ? `${describeError(err)} (${describeError(cause)})` : describeError(err);
}
