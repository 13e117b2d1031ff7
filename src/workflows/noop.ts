import type { Activities } from '../activities';
import { noopJob, type NoopPayload, type NoopResult } from '../jobs/noop';
import { jobActivities, runJob } from '../workflow-kit';

// A local activity: noopJob declares `activity: 'local'`.
const { runNoop } = jobActivities<Activities>(noopJob, 'run');

/** Runs one `noop` job. Its log events, final state and DLQ hand-off come from the job interceptor. */
export function noopWorkflow(payload: NoopPayload): Promise<NoopResult> {
  return runJob(noopJob, (job) => job.step('run', () => runNoop(payload)));
}
