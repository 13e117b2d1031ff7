import { createActivities } from '../activities';
import { redactDatabaseUrl } from '../db/database';
import * as initial from '../db/migrations/0001-initial';
import { seedDemoAccounts } from '../db/seed';
import type { Db } from '../db/schema';
import { defineWorker } from '../worker/define-worker';
import { catalog } from './catalog';

/**
 * The built-in job types' worker: their catalog, workflows and activities, their tables and demo
 * accounts. `npm start` and `npm run worker` find it through package.json
 * (`"durable-jobs": { "worker": "./dist/jobs/worker.js" }`), as they would a user's.
 */
export const worker = defineWorker({
  catalog,
  workflowsPath: require.resolve('../workflows'),
  database: {
    migrations: { '0001-initial': initial },
    seed: async (db) => void (await seedDemoAccounts(db as Db)),
  },
  activities: ({ db, config }) =>
    createActivities({
      email: { smtpUrl: config.smtpUrl, outboxDir: config.outboxDir, from: config.emailFrom },
      db: db as Db,
      reportsDir: config.reportsDir,
      syncSourceUrl: config.syncSourceUrl,
    }),
  banner: (config) => [
    `  Enqueue:    npx jobctl enqueue send-email '{"to":"ada@example.com","subject":"Hi","body":"Hello","userId":"u1"}'`,
    `              npx jobctl enqueue process-payment '{"paymentId":"p-1","fromAccount":"alice","toAccount":"bob","amount":1250,"currency":"EUR"}'`,
    config.smtpUrl ? `  SMTP:       ${config.smtpUrl.replace(/\/\/[^@]*@/, '//***@')}` : `  Outbox:     ${config.outboxDir}`,
    `  Database:   ${redactDatabaseUrl(config.databaseUrl)}`,
  ],
});
