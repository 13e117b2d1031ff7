import { Client, Connection } from '@temporalio/client';
import type { StringValue } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { openDatabase } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import { seedDemoAccounts } from '../db/seed';
import type { Db } from '../db/schema';
import type { Config } from '../shared/config';
import { connectionOptions } from '../shared/temporal-connection';
import { workerTuning } from './tuning';

/** A worker and what it holds open. */
export interface CreatedWorker {
  worker: Worker;
  /** The jobs database, migrated. */
  db: Db;
  /** Closes the connections and the database once the worker has stopped. */
  close: () => Promise<void>;
}

/**
 * Opens and migrates the jobs database (seeding the demo accounts when asked, for `npm start`), connects to Temporal and creates the worker that runs
 * every registered job type and the dead-letter queues.
 */
export async function createWorker(config: Config, startOptions: { seedDemoAccounts?: boolean } = {}): Promise<CreatedWorker> {
  const db = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(db);
    if (startOptions.seedDemoAccounts) await seedDemoAccounts(db);
    const options = connectionOptions(config);
    const connection = await NativeConnection.connect(options);
    // The dead-letter hand-off and redrives start workflows, which needs a client connection too.
    const clientConnection = await Connection.connect(options);
    const client = new Client({ connection: clientConnection, namespace: config.namespace });
    const worker = await Worker.create({
      connection,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      workflowsPath: require.resolve('../workflows'),
      interceptors: { workflowModules: [require.resolve('../workflows/interceptors')] },
      activities: createActivities({
        email: { smtpUrl: config.smtpUrl, outboxDir: config.outboxDir, from: config.emailFrom },
        db,
        reportsDir: config.reportsDir,
        syncSourceUrl: config.syncSourceUrl,
        temporal: { client, taskQueue: config.taskQueue },
      }),
      // On SIGINT/SIGTERM the worker stops polling, lets in-flight activities finish for this long,
      // then cancels them; Temporal retries cancelled attempts on another worker.
      shutdownGraceTime: config.shutdownGraceTime as StringValue,
      // Cache and eager-dispatch settings, measured by `npm run bench` (docs/performance.md).
      ...workerTuning,
    });
    const close = async () => {
      await connection.close();
      await clientConnection.close();
      await db.destroy();
    };
    return { worker, db, close };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
