import { Client, Connection } from '@temporalio/client';
import type { StringValue } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { jobActivityInterceptors } from '../activities/interceptors';
import { openDatabase, redactDatabaseUrl } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import { seedDemoAccounts } from '../db/seed';
import type { Db } from '../db/schema';
import type { Config } from '../shared/config';
import { describe } from '../shared/errors';
import { dataConverterFor } from '../shared/data-converter';
import { connectionOptions } from '../shared/temporal-connection';

/** A worker and what it holds open. */
export interface CreatedWorker {
  worker: Worker;
  /** The jobs database, migrated. */
  db: Db;
  /** A Temporal client on the worker's namespace (DLQ hand-offs, redrives, queue metrics). */
  client: Client;
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
    try {
      await migrateToLatest(db);
      if (startOptions.seedDemoAccounts) await seedDemoAccounts(db);
    } catch (err) {
      throw new Error(`cannot prepare the jobs database ${redactDatabaseUrl(config.databaseUrl)} (DATABASE_URL): ${describe(err)}`, { cause: err });
    }
    const options = connectionOptions(config);
    const connection = await NativeConnection.connect(options);
    // The dead-letter hand-off and redrives start workflows, which needs a client connection too.
    const clientConnection = await Connection.connect(options);
    const dataConverter = dataConverterFor(config);
    const client = new Client({ connection: clientConnection, namespace: config.namespace, dataConverter });
    const worker = await Worker.create({
      connection,
      namespace: config.namespace,
      dataConverter,
      taskQueue: config.taskQueue,
      workflowsPath: require.resolve('../workflows'),
      interceptors: { workflowModules: [require.resolve('../workflows/interceptors')], activity: [jobActivityInterceptors] },
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
    });
    const close = async () => {
      await connection.close();
      await clientConnection.close();
      await db.destroy();
    };
    return { worker, db, client, close };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
