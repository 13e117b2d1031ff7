import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { DataConverter } from '@temporalio/common';
import { withLibraryWorkflows } from '../worker/workflow-entry';
import { bundleWorkflowCode, Worker, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Catalog } from '../catalog/catalog';
import { libraryBundleOptions, libraryWorkerOptions } from '../worker/library-parts';
import type { WorkerTracing } from '../worker/tracing';
import { planQueues } from '../catalog/task-queues';
import { planDependencies } from '../catalog/dependency-plan';
import { queueWorkerOptions, type CreateWorkerOptions } from '../worker/create-worker';
import { applyRatePerKey } from '../worker/apply-rate-per-key';
import { heartbeatThrottleOption } from '../activity-kit/keep-alive';
import { sandboxTimeoutOption } from '../worker/sdk-worker-internals';

const noop = () => {};
/** A bundler logger that shows errors only. */
export const quietBundlerLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };

/** What the worker's bundle has beyond the workflows: tracing's interceptors, encryption's failure converter. */
export interface BundleJobWorkflowsOptions {
  /** The worker's tracing (see `createJobTestWorker`'s). @defaultValue none */
  tracing?: WorkerTracing;
  /** The data converter the workers will run with: an encrypting one brings its failure converter into the bundle. @defaultValue the SDK's */
  dataConverter?: DataConverter;
}

/**
 * Bundles a workflows module with the library's workflows and interceptors, as the worker does:
 * once per test file, then shared by its workers.
 */
export function bundleJobWorkflows(workflowsPath: string, options: BundleJobWorkflowsOptions = {}): Promise<WorkflowBundleWithSourceMap> {
  return withLibraryWorkflows(workflowsPath, (entry) => bundleWorkflowCode({ ...entry, ...libraryBundleOptions(options.tracing, options.dataConverter), logger: quietBundlerLogger }));
}

/** The workers of a test: one per task queue of the catalog, run together. */
export interface JobTestWorker {
  /** One worker per task queue: the shared one first, then each job type's own. */
  workers: Worker[];
  /** Runs every worker until the promise settles, then shuts them all down; resolves to its value. */
  runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R>;
}

/** Options of {@link createJobTestWorker}. */
export interface JobTestWorkerOptions extends Pick<WorkerOptions, 'taskQueue' | 'dataConverter'> {
  /** The job types whose queues to serve, and whose redrives the DLQ activities check. */
  catalog: Catalog;
  /** The catalog's activities (the DLQ's are added, on the environment's client). @defaultValue none */
  activities?: object;
  /** The client the DLQ's activities start workflows with (e.g. one that encrypts). @defaultValue the environment's */
  deadLetterClient?: Client;
  /** Apply each queue's declared concurrency and rate limits (a rate per key too), as the worker does, with these overrides. @defaultValue the SDK's defaults */
  limits?: Pick<CreateWorkerOptions, 'concurrency' | 'workflowConcurrency'>;
  /** The worker's tracing (`workerTracing()` from `durable-jobs/worker`), with a bundle made with the same. @defaultValue none */
  tracing?: WorkerTracing;
}

/**
 * Creates workers on the test environment's connection, as the real worker does: on `taskQueue`
 * (the shared queue, which also runs the DLQs) and on every queue a job type declares of its own,
 * and on each dependency's queue (without its breaker), with the DLQ's activities and the library's
 * activity interceptors, so a `JobClient` on the same
 * `taskQueue` reaches every job. Use a unique `taskQueue` per test.
 */
export async function createJobTestWorker(env: TestWorkflowEnvironment, bundle: WorkflowBundleWithSourceMap, options: JobTestWorkerOptions): Promise<JobTestWorker> {
  const { catalog, limits, activities = {}, taskQueue, dataConverter, deadLetterClient = env.client, tracing } = options;
  const plans = planQueues(taskQueue, catalog.definitions);
  const library = libraryWorkerOptions(activities, { client: deadLetterClient, taskQueue, catalog, tracing });
  // The server-side half of the limits, as the worker sets them at start.
  if (limits) await applyRatePerKey(env.client, plans);
  const workers = await Promise.all(
    plans.map((plan) =>
      Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace,
        workflowBundle: bundle,
        dataConverter,
        ...library,
        ...sandboxTimeoutOption,
        ...heartbeatThrottleOption,
        ...(limits ? queueWorkerOptions(plan, limits) : { taskQueue: plan.taskQueue }),
      }),
    ),
  );
  // Each dependency's steps run on its queue, as on the real worker (with `limits`, at its concurrency and rate); without its breaker (no reports, no gate).
  for (const dependency of planDependencies(taskQueue, catalog.definitions)) {
    const declared = limits ? { maxConcurrentActivityTaskExecutions: limits.concurrency ?? dependency.concurrency, maxTaskQueueActivitiesPerSecond: dependency.settings.rate } : {};
    workers.push(await Worker.create({ connection: env.nativeConnection, namespace: env.namespace, dataConverter, ...library, ...heartbeatThrottleOption, taskQueue: dependency.taskQueue, ...declared }));
  }
  return {
    workers,
    async runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R> {
      const until = typeof fnOrPromise === 'function' ? fnOrPromise() : fnOrPromise;
      const results = await Promise.all(workers.map((w) => w.runUntil(until)));
      return results[0] as R;
    },
  };
}
