import path from 'node:path';
import { repoRoot } from './env';
import { startProcess, type Started } from './processes';

/**
 * Starts the own-queues fixture's worker (`src/worker/main.ts --worker test/fixtures/own-queues/worker.ts`,
 * as a team's worker process runs) against `address`, and resolves once it has started.
 */
export async function startOwnQueuesWorker(address: string, taskQueue: string, dataDir: string): Promise<Started> {
  const started = startProcess(
    process.execPath,
    ['--require', 'tsx/cjs', path.join(repoRoot, 'src/worker/main.ts'), '--worker', path.join(repoRoot, 'test/fixtures/own-queues/worker.ts')],
    { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: 'info', METRICS_PORT: '0' },
    repoRoot,
  );
  await started.waitFor('worker:started', 180_000);
  return started;
}
