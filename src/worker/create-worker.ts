import { Client, Connection } from '@temporalio/client';
import type { StringValue } from '@temporalio/common';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { jobActivityInterceptors } from '../activities/interceptors';
import { openDatabase, redactDatabaseUrl } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import { seedDemoAccounts } from '../db/seed';
import type { Db } from '../db/schema';
import { jobTypes, registry } from '../jobs/registry';
import { planQueues, type QueuePlan } from '../jobs/task-queues';
import type { Config } from '../shared/config';
import { describe } from '../shared/errors';
import { dataConverterFor } from '../shared/data-converter';
import { ensureSearchAttributes } from '../shared/ensure-search-attributes';
import { connectionOptions } from '../shared/temporal-connection';
import { workerTuning } from './tuning';

/** The workers of one process, one per task queue, and what they hold open. */
export interface CreatedWorker {
  /** One Temporal worker per task queue served, in the order of {@link plans}. */
  workers: Worker[];
  /** The queues served, their job types and limits. */
  plans: QueuePlan[];
  /** The jobs database, migrated. */
  db: Db;
  /** A Temporal client on the worker's namespace (DLQ hand-offs, redrives, queue metrics). */
  client: Client;
  /** Closes the connections and the database once the workers have stopped. */
  close: () => Promise<void>;
}

/** Options of {@link createWorker}. */
export interface CreateWorkerOptions {
  /** Seed the demo accounts (for `npm start`). @defaultValue false */
  seedDemoAccounts?: boolean;
  /** Activity slots per worker on every queue, instead of what the job types declare (tests, tuning). @defaultValue the declared concurrency */
  concurrency?: number;
  /** Workflow task slots per worker. @defaultValue the Temporal SDK's default */
  workflowConcurrency?: number;
}

/** The options of one queue's worker that come from its plan: the queue, its slots and its rate limit. */
export function queueWorkerOptions(
  plan: QueuePlan,
  options: Pick<CreateWorkerOptions, 'concurrency' | 'workflowConcurrency'> = {},
): Pick<WorkerOptions, 'taskQueue' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxTaskQueueActivitiesPerSecond'> {
  return {
    taskQueue: plan.taskQueue,
    maxConcurrentActivityTaskExecutions: options.concurrency ?? plan.concurrency,
    maxConcurrentWorkflowTaskExecutions: options.workflowConcurrency,
    // Enforced by the server over all workers of the queue, unlike maxActivitiesPerSecond (per worker).
    maxTaskQueueActivitiesPerSecond: plan.rateLimit,
  };
}

/**
 * Opens and migrates the jobs database, connects to Temporal and creates one worker per task queue
 * that serves `config.workerJobTypes` (all types by default), each with its queue's concurrency and
 * rate limit. Every worker registers every workflow and activity: a queue may hold jobs of a type
 * that has since moved to a queue of its own, and those still run where they were started.
 */
export async function createWorker(config: Config, options: CreateWorkerOptions = {}): Promise<CreatedWorker> {
  const db = openDatabase(config.databaseUrl);
  const opened: { close(): Promise<void> }[] = [];
  try {
    try {
      await migrateToLatest(db);
      if (options.seedDemoAccounts) await seedDemoAccounts(db);
    } catch (err) {
      throw new Error(`cannot prepare the jobs database ${redactDatabaseUrl(config.databaseUrl)} (DATABASE_URL): ${describe(err)}`, { cause: err });
    }
    const all = planQueues(config.taskQueue, jobTypes.map((t) => registry[t]));
    const wanted = new Set<string>(config.workerJobTypes ?? jobTypes);
    const plans = all.filter((p) => p.types.some((t) => wanted.has(t)));
    const connectionConfig = connectionOptions(config);
    const connection = await NativeConnection.connect(connectionConfig);
    opened.push(connection);
    // The dead-letter hand-off and redrives start workflows, which needs a client connection too.
    const clientConnection = await Connection.connect(connectionConfig);
    opened.push(clientConnection);
    // Registers the search attributes the namespace lacks, and waits until they are listed, before
    // any worker polls: the server refuses to start a job whose search attributes it lacks.
    await ensureSearchAttributes(clientConnection, config.namespace, { logger: Runtime.instance().logger });
    const dataConverter = dataConverterFor(config);
    const client = new Client({ connection: clientConnection, namespace: config.namespace, dataConverter });
    const activities = createActivities({
      email: { smtpUrl: config.smtpUrl, outboxDir: config.outboxDir, from: config.emailFrom },
      db,
      reportsDir: config.reportsDir,
      syncSourceUrl: config.syncSourceUrl,
      // The shared queue: it names the dead-letter queues and runs them, whatever queue a job is on.
      temporal: { client, taskQueue: config.taskQueue },
    });
    // Bundled once for all the queues' workers.
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows'),
      workflowInterceptorModules: [require.resolve('../workflows/interceptors')],
      // Workflow code converts its own failures: with encryption on, it must use the same converter.
      failureConverterPath: dataConverter.failureConverterPath,
      logger: Runtime.instance().logger,
    });
    const workers: Worker[] = [];
    for (const plan of plans) {
      workers.push(
        await Worker.create({
          connection,
          namespace: config.namespace,
          workflowBundle,
          dataConverter,
          activities,
          interceptors: { activity: [jobActivityInterceptors] },
          // Cache and eager-dispatch settings, measured by `npm run bench` (docs/performance.md).
          ...workerTuning,
          ...queueWorkerOptions(plan, options),
          // On SIGINT/SIGTERM the worker stops polling, lets in-flight activities finish for this long,
          // then cancels them; Temporal retries cancelled attempts on another worker.
          shutdownGraceTime: config.shutdownGraceTime as StringValue,
        }),
      );
    }
    const close = async () => {
      for (const c of opened.reverse()) await c.close();
      await db.destroy();
    };
    return { workers, plans, db, client, close };
  } catch (err) {
    for (const c of opened.reverse()) await c.close().catch(() => {});
    await db.destroy();
    throw err;
  }
}
