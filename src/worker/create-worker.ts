import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../shared/config';
import { connectionOptions } from '../shared/temporal-connection';
import type { StringValue } from '@temporalio/common';

/** Connects to Temporal and creates the worker that runs every registered job type. */
export async function createWorker(config: Config): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect(connectionOptions(config));
  const worker = await Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ email: { smtpUrl: config.smtpUrl, outboxDir: config.outboxDir, from: config.emailFrom } }),
    // On SIGINT/SIGTERM the worker stops polling, lets in-flight activities finish for this long,
    // then cancels them; Temporal retries cancelled attempts on another worker.
    shutdownGraceTime: config.shutdownGraceTime as StringValue,
  });
  return { worker, connection };
}
