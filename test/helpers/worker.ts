import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities, type ActivityDeps } from '../../src/activities';
import type { Db } from '../../src/db/schema';

/** Activity dependencies for a test: a real database, temp folders, the test env's client. */
export function testActivityDeps(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  db: Db,
  overrides: Partial<Omit<ActivityDeps, 'db' | 'temporal'>> & { reportsDir: string; client?: ActivityDeps['temporal']['client'] },
): ActivityDeps {
  return {
    email: overrides.email ?? { outboxDir: overrides.reportsDir, from: 'jobs@test' },
    db,
    reportsDir: overrides.reportsDir,
    syncSourceUrl: overrides.syncSourceUrl,
    temporal: { client: overrides.client ?? env.client, taskQueue },
  };
}

export { createActivities };
