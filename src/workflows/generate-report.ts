/**
 * The `generate-report` workflow: one long aggregation, run as a chain of short activity calls.
 *
 * Each `aggregateReportPages` call reads one batch of pages, heartbeating after every page; the
 * workflow keeps only the cursor and counts it returns and calls again until the report is done.
 * This gives both halves of a long job:
 * - resume: an attempt that dies (a crashed worker is noticed by the 10s heartbeat timeout) is
 *   retried, and the retry continues from its last heartbeat, not from the start of the batch;
 * - progress: between calls the workflow reports `job.progress` (`done`/`total` entries), which the
 *   `jobState` query and so `jobctl status` report while the job runs.
 * The partial aggregate lives in the activity's checkpoint file (see src/activities/reports.ts), not
 * in the history, so the history holds a few events per batch of 10,000 entries whatever the
 * number of accounts.
 *
 * On failure or cancellation the undo deletes the temporary files; a cancelled attempt also deletes
 * its own before it acknowledges, so no partial file outlives the job.
 */
import type { Activities } from '../activities';
import type { ReportHeartbeat } from '../activities/reports';
import { jobActivities, runJob } from '../workflow-kit';
import { generateReportJob, type GenerateReportPayload, type GenerateReportResult } from '../jobs/generate-report';

const { aggregateReportPages } = jobActivities<Activities>(generateReportJob, 'report');
const { discardReportFiles } = jobActivities<Activities>(generateReportJob, 'cleanup');

/** Runs one `generate-report` job. The workflow ID is the job ID. */
export function generateReportWorkflow(payload: GenerateReportPayload): Promise<GenerateReportResult> {
  return runJob(
    generateReportJob,
    async (job) => {
      // Registered before the first call: a batch that fails part-way may already have left a checkpoint.
      job.undo('report', () => discardReportFiles({ payload }));
      return job.step('report', async () => {
        let after: ReportHeartbeat | undefined;
        for (;;) {
          const batch = await aggregateReportPages({ payload, after });
          job.progress({ done: batch.done, total: batch.total, unit: 'entries' });
          if (batch.report) return batch.report;
          after = { done: batch.done, total: batch.total, cursor: batch.cursor };
        }
      });
    },
    { progress: { done: 0, unit: 'entries' } },
  );
}
