// The `ours-activity` scenario's worker, as a team's `src/worker.ts` is written (README step 3):
// the library's worker over a catalog of its own, run as the process's main task. Env as for
// `npm run worker` (TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, LOG_LEVEL, …).
import { defineWorker, runWorkerProcess } from '../../src/worker';
import { createActivities } from './activities';
import { catalog } from './catalog';

/** The bench's user-defined worker: one job type, no database. */
export const worker = defineWorker({
  catalog,
  workflowsPath: require.resolve('./workflows'),
  activities: () => createActivities(),
});

if (require.main === module) runWorkerProcess(worker);
