import { createActivities, type ActivityDeps } from '../../src/activities';
import type { Db } from '../../src/jobs/database/schema';

/** Activity dependencies for a test: a real database, temp folders (the test worker adds the DLQ's, on the env's client). */
export function testActivityDeps(db: Db, overrides: Partial<Omit<ActivityDeps, 'db'>> & { reportsDir: string }): ActivityDeps {
  return {
    email: overrides.email ?? { outboxDir: overrides.reportsDir, from: 'jobs@test' },
    db,
    reportsDir: overrides.reportsDir,
    syncSourceUrl: overrides.syncSourceUrl,
  };
}

export { createActivities };
