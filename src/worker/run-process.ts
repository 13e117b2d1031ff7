import { describeRedacted } from '../shared/redact';
import type { PayloadSchemas } from '../catalog/catalog';
import { runWorker, type RunWorkerOptions } from './run';

/**
 * Runs the worker as the process's main task, as `npm run worker` does: until SIGINT/SIGTERM, then
 * exit 0; a failure (a bad setting, an unreachable server, a missing namespace) prints its message
 * with secrets redacted and no stack trace, and exits 1. For a team's `worker.ts`:
 * `if (require.main === module) runWorkerProcess(worker);`
 */
export function runWorkerProcess<S extends PayloadSchemas, DB>(options: RunWorkerOptions<S, DB>): void {
  runWorker(options).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(describeRedacted(err));
      process.exit(1);
    },
  );
}
