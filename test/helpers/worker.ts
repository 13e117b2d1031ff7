import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../src/activities';
import type { Db } from '../../src/db/schema';

/** Activity dependencies for a test: a real database, temp folders, the test env's client. */
export function testActivityDeps(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  db: Db,
  overrides: Partial<Omit<ActivityDeps, 'db' | 'temporal'>> & { reportsDir: string },
): ActivityDeps {
  return {
    email: overrides.email ?? { outboxDir: overrides.reportsDir, from: 'jobs@test' },
    db,
    reportsDir: overrides.reportsDir,
    syncSourceUrl: overrides.syncSourceUrl,
    temporal: { client: env.client, taskQueue },
  };
}

/**
 * A worker on the test environment with the real workflow bundle (interceptors included) and the
 * given activities, by default every real activity built from `deps`.
 */
export function createJobsWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  taskQueue: string,
  activities: object,
): Promise<Worker> {
  return Worker.create({ connection: env.nativeConnection, workflowBundle: bundle, taskQueue, activities });
}

export { createActivities };
