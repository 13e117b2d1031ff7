import { isCatalog } from '../catalog/catalog';
import { ConfigError } from '../shared/errors';
import { findProjectModule, loadProjectModule } from '../shared/project-modules';
import type { WorkerDefinition } from './define-worker';

function isWorkerDefinition(value: unknown): value is WorkerDefinition {
  const d = value as Partial<WorkerDefinition> | undefined;
  return typeof d === 'object' && d !== null && isCatalog(d.catalog) && typeof d.workflowsPath === 'string';
}

/**
 * The project's worker definition, for `npm start` and `npm run worker`: the module named by
 * `--worker`, `DURABLE_JOBS_WORKER` or package.json's `"durable-jobs": { "worker": … }`.
 */
export function loadProjectWorker(flag?: string): WorkerDefinition {
  const ref = findProjectModule('worker', flag);
  if (!ref) {
    throw new ConfigError([
      { path: '--worker / DURABLE_JOBS_WORKER', message: 'no worker module: name the module that exports defineWorker({ catalog, workflowsPath, activities }), or set "durable-jobs": { "worker": "./dist/worker.js" } in package.json' },
    ]);
  }
  return loadProjectModule(ref, 'worker', isWorkerDefinition, 'defineWorker({ catalog, workflowsPath, activities })');
}
