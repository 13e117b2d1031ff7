import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, type Logger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import { JobClient, type EnqueueOptions } from '../client/job-client';
import type { JobRecord } from '../client/job-record';
import { openDatabase } from '../db/database';
import { ledgerSteps } from '../activity-kit/ledger';
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../shared/config';
import { dataConverterFor } from '../shared/data-converter';
import { workerTracing } from '../worker/library-parts';
import { describeError } from '../shared/errors';
import type { ActivityContext, DatabaseDefinition } from '../worker/define-worker';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import { startDevServerEnv, startTimeSkippingEnv, type TestEnvOptions } from './environment';
import { installKitRuntime } from './kit-runtime';
import { bundleJobWorkflows, createJobTestWorker } from './test-worker';

/** Options of {@link startJobTestKit}: what a worker definition holds, and which server. */
export interface JobTestKitOptions<S extends PayloadSchemas> extends TestEnvOptions {
  /** The job types under test. */
  catalog: Catalog<S>;
  /** The workflows module (its job types' workflows; the kit adds the library's, as the worker does), e.g. `require.resolve('../src/workflows')`. */
  workflowsPath: string;
  /**
   * The activities, or a factory given the kit's database, client and the configuration the
   * environment gives (as a worker's is), so that a worker definition's own factory runs here
   * unchanged: `startJobTestKit({ ...worker })`. @defaultValue none
   */
  activities?: object | ((context: ActivityContext) => object | Promise<object>);
  /** A jobs database (a fresh SQLite file, migrated with the ledger and these migrations), for activities that call `runOnce`. @defaultValue none */
  database?: DatabaseDefinition;
  /**
   * Where the kit's worker and servers log (the SDK's `Logger`, e.g. `new DefaultLogger('INFO', (entry) => …)`).
   * The runtime is installed once per process: a runtime installed before the first kit is kept and
   * this is ignored. @defaultValue the console, at warn or LOG_LEVEL
   */
  logger?: Logger;
  /**
   * `time-skipping`: timers and retry delays pass at once (Temporal's test server). `dev-server`: a
   * real local server, needed for updates (a DLQ redrive or discard) and visibility (`list`).
   * @defaultValue 'time-skipping'
   */
  server?: 'time-skipping' | 'dev-server';
}

/** One failing attempt to inject: the first `attempts` attempts of an activity throw `error`. */
export interface InjectedFailure {
  /** How many attempts fail, from the first. @defaultValue 1 */
  attempts?: number;
  /** What they throw (an `ApplicationFailure` to choose its type and retryability). @defaultValue a plain Error, which the retry schedule retries */
  error?: () => unknown;
}

/** A running test kit: a server, a worker over the catalog, a typed client, the database. */
export interface JobTestKit<S extends PayloadSchemas> {
  /** The Temporal test environment. */
  env: TestWorkflowEnvironment;
  /** A client typed by the catalog, on the kit's own task queue. */
  client: JobClient<S>;
  /** The kit's task queue (unique per kit). */
  taskQueue: string;
  /** The jobs database, when the options declare one. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's own tables type it
  db?: Kysely<any>;
  /**
   * From now on, the first `attempts` attempts of the activity `name` fail, in every job that runs it
   * (not only the next one), e.g. to reach a retry or the DLQ; `{ attempts: 0 }` stops it.
   */
  failActivity(name: string, failure?: InjectedFailure): void;
  /** Enqueues a job, waits until it closes (completed, failed and dead-lettered, or cancelled), and returns its record. */
  runJob<T extends keyof S & string>(type: T, payload: z.input<S[T]>, options?: EnqueueOptions): Promise<JobRecord>;
  /** Runs `fn` with the kit's client (the kit's worker runs from start to {@link close}); rejects if the worker fails first. */
  run<R>(fn: (client: JobClient<S>) => Promise<R>): Promise<R>;
  /** The DLQ entry of a job, waiting briefly for its hand-off; `undefined` if none arrives. */
  deadLetter(id: string, timeoutMs?: number): Promise<DeadLetterEntry | undefined>;
  /** The ledger's steps of a job, oldest first (needs {@link JobTestKitOptions.database}). */
  ledger(jobId: string): Promise<{ execution: string; step: string }[]>;
  /** Stops the worker and the server, and removes the database. */
  close(): Promise<void>;
}

/**
 * A test environment for a team's own job types, as `@temporalio/testing` is for workflows: the
 * library's DLQ, interceptors and retry handling over the user's catalog, on a server found or
 * provisioned the way `npm test` does.
 */
export async function startJobTestKit<S extends PayloadSchemas>(options: JobTestKitOptions<S>): Promise<JobTestKit<S>> {
  installKitRuntime(options.logger);
  // As the worker: payloads encrypted when keys are configured, traced when OTEL_* is.
  const config = loadConfig();
  const dataConverter = dataConverterFor(config);
  const tracing = workerTracing();
  const client = { dataConverter, ...(tracing ? { interceptors: { workflow: tracing.clientInterceptors } } : {}), ...options.client };
  const env = options.server === 'dev-server' ? await startDevServerEnv({ ...options, client }) : await startTimeSkippingEnv({ ...options, client });
  const taskQueue = `test-${randomUUID()}`;
  let dir: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's own tables type it
  let db: Kysely<any> | undefined;
  let stopWorkers = async () => {};
  try {
    if (options.database) {
      dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-kit-'));
      db = openDatabase(path.join(dir, 'jobs.db'));
      await migrateToLatest(db, options.database.migrations);
    }
    const temporal = env.client;
    const given = typeof options.activities === 'function' ? await options.activities({ db, client: temporal, config, logger: Runtime.instance().logger } as ActivityContext) : (options.activities ?? {});
    const failures = new Map<string, Required<InjectedFailure>>();
    const activities = withInjectedFailures(given as Record<string, unknown>, failures);
    const bundle: WorkflowBundleWithSourceMap = await bundleJobWorkflows(options.workflowsPath, { tracing, dataConverter });
    const client = new JobClient<S>(temporal, { taskQueue, catalog: options.catalog });
    // One set of workers for the kit's life, started here and stopped by close(). A worker runs only
    // once, and a fresh one per call would leave the long-lived DLQ workflow on the sticky queue of a
    // stopped worker, where the test server never answers its queries.
    const worker = await createJobTestWorker(env, bundle, { catalog: options.catalog, activities, taskQueue, dataConverter, deadLetterClient: temporal, tracing });
    const running = Promise.all(worker.workers.map((w) => w.run()));
    const stopped = running.then(
      () => Promise.reject(new Error('the test kit’s worker has stopped (close() was called)')),
      (err: unknown) => Promise.reject(new Error(`the test kit’s worker failed: ${describeError(err)}`, { cause: err })),
    );
    stopped.catch(() => {});
    stopWorkers = async () => {
      for (const w of worker.workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running.catch(() => {});
    };
    const run = <R>(fn: (c: JobClient<S>) => Promise<R>): Promise<R> => Promise.race([fn(client), stopped]);
    return {
      env,
      client,
      taskQueue,
      db,
      failActivity: (name, failure = {}) => {
        if (!(name in activities)) throw new TypeError(`no activity named ${name} (known: ${Object.keys(activities).join(', ')})`);
        failures.set(name, { attempts: failure.attempts ?? 1, error: failure.error ?? (() => new Error(`injected failure of ${name}`)) });
      },
      runJob: (type, payload, enqueueOptions) =>
        run(async (c) => {
          const { id } = await c.enqueue(type, payload, enqueueOptions);
          await c.result(id).catch(() => undefined);
          return c.get(id);
        }),
      run,
      deadLetter: (id, timeoutMs = 10_000) =>
        run(async (c) => {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const [entry] = await c.deadLetters.list({ id, status: 'all' });
            if (entry || Date.now() > deadline) return entry;
            await new Promise((r) => setTimeout(r, 100));
          }
        }),
      ledger: async (jobId) => {
        if (!db) throw new TypeError('the kit has no database: pass { database: {} } to startJobTestKit');
        return ledgerSteps(db, jobId);
      },
      close: async () => {
        await stopWorkers();
        await db?.destroy();
        if (dir) await rm(dir, { recursive: true, force: true });
        await env.teardown();
      },
    };
  } catch (err) {
    await stopWorkers().catch(() => {});
    await db?.destroy().catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
    await env.teardown().catch(() => {});
    throw err;
  }
}

/** Wraps each activity so that an injected failure's first attempts throw before the activity runs. */
function withInjectedFailures(activities: Record<string, unknown>, failures: Map<string, Required<InjectedFailure>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      typeof fn !== 'function'
        ? fn
        : async (...args: unknown[]) => {
            const failure = failures.get(name);
            if (failure && Context.current().info.attempt <= failure.attempts) throw failure.error();
            return (fn as (...a: unknown[]) => unknown)(...args);
          },
    ]),
  );
}
