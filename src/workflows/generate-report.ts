/**
 * The `generate-report` workflow: one long aggregation, run as a chain of short activity calls.
 *
 * Each `aggregateReportPages` call reads one batch of pages, heartbeating after every page; the
 * workflow keeps only the cursor and counts it returns and calls again until the report is done.
 * This gives both halves of a long job:
 * - resume: an attempt that dies (a crashed worker is noticed by the 10s heartbeat timeout) is
 *   retried, and the retry continues from its last heartbeat, not from the start of the batch;
 * - progress: between calls the workflow sets `state.progress` (`done`/`total` entries), which the
 *   `jobState` query and so `jobctl status` report while the job runs.
 * The partial aggregate lives in the activity's checkpoint file (see src/activities/reports.ts), not
 * in the history, so the history holds a few events per batch of 10,000 entries whatever the
 * number of accounts.
 *
 * On failure or cancellation the saga deletes the temporary files; a cancelled attempt also deletes
 * its own before it acknowledges, so no partial file outlives the job.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReportHeartbeat } from '../activities/reports';
import { jobActivities } from '../workflow';
import { generateReportJob, type GenerateReportPayload, type GenerateReportResult } from '../jobs/generate-report';
import { trackJob } from '../workflow';
import { Saga } from '../workflow';

const { aggregateReportPages } = jobActivities<Activities>(generateReportJob, 'report');
const { discardReportFiles } = jobActivities<Activities>(generateReportJob, 'cleanup');

/** Runs one `generate-report` job. The workflow ID is the job ID. */
export async function generateReportWorkflow(payload: GenerateReportPayload): Promise<GenerateReportResult> {
  const state = trackJob(generateReportJob, { step: 'report', preset: 'report', progress: { done: 0, unit: 'entries' } });
  const jobId = workflowInfo().workflowId;
  const saga = new Saga(state);
  // Registered before the first call: a batch that fails part-way may already have left a checkpoint.
  saga.add('report', () => discardReportFiles({ jobId, payload }));
  try {
    let after: ReportHeartbeat | undefined;
    for (;;) {
      const batch = await aggregateReportPages({ jobId, payload, after });
      state.progress = { done: batch.done, total: batch.total, unit: 'entries' };
      if (batch.report) return batch.report;
      after = { done: batch.done, total: batch.total, cursor: batch.cursor };
    }
  } catch (err) {
    await saga.compensate();
    throw err;
  }
}
