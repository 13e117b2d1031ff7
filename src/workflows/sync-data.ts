import {
  allHandlersFinished,
  condition,
  defineSignal,
  log,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ConfigWaitStopped, jobActivities, runJob, stopConfigWaitWhen } from '../workflow-kit';
import { defaultPagesPerRun, isSyncPageSize, syncDataJob, type SyncDataPayload, type SyncDataResult, type SyncFinish } from '../jobs/sync-data';

const { syncPage } = jobActivities<Activities>(syncDataJob, 'page');

/** Input of {@link requestStopSignal}. */
export interface RequestStopInput {
  /** Why the sync should stop; returned as the job's `stopReason`. */
  reason: string;
}

/** Asks a `sync-data` job to stop after the page in flight and complete. A stored contract. */
export const requestStopSignal = defineSignal<[RequestStopInput]>('requestStop');

/** Input of {@link setPageSizeSignal}. */
export interface SetPageSizeInput {
  /** Records per page from the next page on: an integer from 1 to 1000. */
  pageSize: number;
}

/** Changes a `sync-data` job's page size from the next page on. A stored contract. */
export const setPageSizeSignal = defineSignal<[SetPageSizeInput]>('setPageSize');

/**
 * What one run of a `sync-data` job hands to the next when it continues as new: the workflow's
 * second argument. The payload stays the first argument, unchanged.
 */
export interface SyncDataResume {
  /** Where the next page starts; null only before the first page. */
  cursor: string | null;
  /** Pages synced by earlier runs. */
  pagesSoFar: number;
  /** Records written by earlier runs. */
  recordsSoFar: number;
  /** The number of the run this state starts (2 for the first continuation). */
  run: number;
  /** A page size set by {@link setPageSizeSignal}. @defaultValue the payload's `pageSize` */
  pageSize?: number;
}

/**
 * Runs one `sync-data` job: one `syncPage` activity per page, the cursor kept in workflow state,
 * continuing as new every `pagesPerRun` pages (or when Temporal suggests it) so history stays bounded.
 */
export async function syncDataWorkflow(payload: SyncDataPayload, resume?: SyncDataResume): Promise<SyncDataResult> {
  const run = resume?.run ?? 1;
  let cursor = resume?.cursor ?? null;
  let pages = resume?.pagesSoFar ?? 0;
  let records = resume?.recordsSoFar ?? 0;
  let pageSize = resume?.pageSize ?? payload.pageSize;
  let stopReason: string | undefined;
  return runJob(syncDataJob, async (job) => {
    setHandler(requestStopSignal, (input) => {
      stopReason ??= typeof input?.reason === 'string' && input.reason ? input.reason : 'stop requested';
    });
    setHandler(setPageSizeSignal, (input) => {
      const requested: unknown = input?.pageSize;
      if (isSyncPageSize(requested)) pageSize = requested;
      else log.warn('sync:page-size-ignored', { jobId: workflowInfo().workflowId, pageSize: String(input?.pageSize) });
    });

    // A stop asked for while the job waits for SYNC_SOURCE_URL ends the wait: no page is in flight.
    stopConfigWaitWhen(() => stopReason !== undefined);

    const pagesPerRun = payload.pagesPerRun ?? defaultPagesPerRun;
    const finish = (finished: SyncFinish): SyncDataResult => ({
      source: payload.source,
      pages,
      records,
      runs: run,
      finished,
      nextCursor: cursor,
      ...(finished === 'stopped' ? { stopReason } : {}),
    });

    for (let pagesThisRun = 0; ; ) {
      if (stopReason !== undefined) return finish('stopped');
      if (payload.maxPages !== undefined && pages >= payload.maxPages) return finish('max-pages');
      if (pagesThisRun > 0 && (pagesThisRun >= pagesPerRun || workflowInfo().continueAsNewSuggested)) {
        await condition(allHandlersFinished);
        if (stopReason !== undefined) return finish('stopped');
        // Built after the wait, so whatever a signal changed until now travels to the next run.
        const next: SyncDataResume = { cursor, pagesSoFar: pages, recordsSoFar: records, run: run + 1 };
        if (pageSize !== payload.pageSize) next.pageSize = pageSize;
        const { memo, typedSearchAttributes } = workflowInfo();
        return makeContinueAsNewFunc<typeof syncDataWorkflow>({ memo, typedSearchAttributes })(payload, next);
      }
      let page;
      try {
        page = await syncPage({ source: payload.source, cursor, pageSize, ...(payload.sourceToken ? { sourceToken: payload.sourceToken } : {}) });
      } catch (err) {
        if (err instanceof ConfigWaitStopped) return finish('stopped');
        throw err;
      }
      pages += 1;
      pagesThisRun += 1;
      records += page.upserted;
      cursor = page.nextCursor;
      job.progress({ done: pages, unit: 'pages' });
      if (cursor === null) return finish('exhausted');
    }
  }, { run, progress: { done: pages, unit: 'pages' } });
}
