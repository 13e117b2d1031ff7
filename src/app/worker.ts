import { createActivities } from '../activities';
import { redactDatabaseUrl } from '../worker';
import { builtInMigrations } from '../jobs/database/migrations';
import { seedDemoAccounts } from '../jobs/database/seed';
import type { Database } from '../jobs/database/schema';
import { ConfigError } from '../client';
import { defineWorker, jobsDatabase } from '../worker';
import type { Config, SettingsContext } from '../worker';
import { catalog } from '../jobs/catalog';
import { loadBuiltInSettings, type BuiltInSettings } from '../jobs/settings';

/**
 * The built-in job types' worker: their catalog, workflows and activities, their tables and demo
 * accounts. `npm start` and `npm run worker` find it through package.json
 * (`"durable-jobs": { "worker": "./dist/app/worker.js" }`), as they would a user's.
 */
export const worker = defineWorker({
  catalog,
  workflowsPath: require.resolve('../workflows'),
  database: jobsDatabase<Database>({
    migrations: builtInMigrations,
    seed: async (db) => void (await seedDemoAccounts(db)),
  }),
  checkSettings: (config, context) => checkBuiltInSettings(loadBuiltInSettings(config.dataDir), context),
  activities: ({ db, config, logger }) => {
    const settings = loadBuiltInSettings(config.dataDir);
    if (settings.smtpUrl && !settings.smtpTls.rejectUnauthorized) {
      logger.warn('smtp:tls-unverified — SMTP_TLS_REJECT_UNAUTHORIZED=false: the mail server\'s certificate is not verified, so anyone on the path can read the mail and the SMTP password; trust its CA with SMTP_CA_FILE instead', { setting: 'SMTP_TLS_REJECT_UNAUTHORIZED' });
    }
    return createActivities({
      email: { smtpUrl: settings.smtpUrl, outboxDir: settings.outboxDir, from: settings.emailFrom, tls: settings.smtpTls, ledger: db },
      db,
      reportsDir: settings.reportsDir,
      syncSourceUrl: settings.syncSourceUrl,
    });
  },
  banner: (config) => bannerLines(config, loadBuiltInSettings(config.dataDir)),
});

/**
 * A worker asked by name to serve `sync-data` (`--types` / `WORKER_JOB_TYPES`) without
 * SYNC_SOURCE_URL could run none of its jobs: refused. One that serves it because it serves every
 * type (`npm start`) or shares its queue warns instead, so a deployment that runs no sync-data jobs
 * needs no source; a sync-data job it picks up waits on `jobs:missing-config`, consuming no attempt.
 */
export function checkBuiltInSettings(settings: BuiltInSettings, context: SettingsContext): void {
  if (settings.syncSourceUrl !== undefined || !context.types.includes('sync-data')) return;
  if (context.chosen?.includes('sync-data')) {
    throw new ConfigError([{ path: 'SYNC_SOURCE_URL', message: 'is not set, and this worker serves sync-data (--types / WORKER_JOB_TYPES): set it to the source sync-data pulls from, or serve other types' }]);
  }
  context.logger.warn('sync-data:no-source — SYNC_SOURCE_URL is not set: sync-data jobs wait (jobs:missing-config, consuming no attempt) until a worker that has it runs them', { setting: 'SYNC_SOURCE_URL' });
}

function bannerLines(config: Config, settings: BuiltInSettings): string[] {
  return [
    `  Enqueue:    npx jobctl enqueue send-email '{"to":"ada@example.com","subject":"Hi","body":"Hello","userId":"u1"}'`,
    `              npx jobctl enqueue process-payment '{"paymentId":"p-1","fromAccount":"alice","toAccount":"bob","amount":1250,"currency":"EUR"}'`,
    settings.smtpUrl ? `  SMTP:       ${settings.smtpUrl.replace(/\/\/[^@]*@/, '//***@')}` : `  Outbox:     ${settings.outboxDir}`,
    `  Database:   ${redactDatabaseUrl(config.databaseUrl)}`,
  ];
}
