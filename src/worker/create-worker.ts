import { Client, Connection } from '@temporalio/client';
import type { StringValue } from '@temporalio/common';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Kysely } from 'kysely';
import type { PayloadSchemas } from '../catalog/catalog';
import { planQueues, type QueuePlan } from '../catalog/task-queues';
import { openDatabase, redactDatabaseUrl } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import { resolveConfig, type Config, type ConfigOverrides } from '../shared/config';
import { ConfigError, UnreachableError, describeError } from '../shared/errors';
import { assertNamespace } from './namespace-check';
import { dataConverterFor } from '../shared/data-converter';
import { ensureSearchAttributes } from '../shared/ensure-search-attributes';
import { heartbeatThrottleOption } from '../activity-kit/keep-alive';
import { sandboxTimeoutOption } from './sdk-worker-internals';
import { connectionOptions } from '../shared/temporal-connection';
import { heavyModulesIn } from './bundle-check';
import { checkWorkflowExports } from './check-workflows';
import { withLibraryWorkflows } from './workflow-entry';
import type { ActivityContext, WorkerDefinition } from './define-worker';
import { workerTuning } from './tuning';
import { applyRatePerKey } from './apply-rate-per-key';
import { tracingTarget } from '../shared/tracing-env';
import { libraryBundleOptions, libraryWorkerOptions, workerTracing } from './library-parts';
import { DependencyBreakers } from '../activity-kit/breakers';
import { planDependencies, type DependencyPlan } from '../catalog/dependency-plan';
import { dependencyWorkerOptions } from './dependency-workers';

/** The workers of one process, one per task queue, and what they hold open. */
export interface CreatedWorker {
  /** One Temporal worker per task queue served, in the order of {@link plans}. */
  workers: Worker[];
  /** The queues served, their job types and limits. */
  plans: QueuePlan[];
  /** The dependencies' queues served (after {@link plans}' workers in {@link workers}), one worker each. */
  dependencies: DependencyPlan[];
  /** The jobs database, migrated; absent when the definition declares none. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's own tables type it
  db?: Kysely<any>;
  /** A Temporal client on the worker's namespace (DLQ hand-offs, redrives); traced when tracing is on. */
  client: Client;
  /**
   * The same client without tracing: for the worker's own periodic reads (the queue metrics'
   * samples), which are no job's work and, traced, would send a backend a trace every few seconds
   * (a query of every DLQ shard, most of which do not exist). The same object when tracing is off.
   */
  untracedClient: Client;
  /** The validated configuration the workers run with. */
  config: Config;
  /** Closes the connections and the database once the workers have stopped. */
  close: () => Promise<void>;
}

/** Options of {@link createWorker}: what to run, and how. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ActivityContext
export interface CreateWorkerOptions<S extends PayloadSchemas = PayloadSchemas, DB = any> extends WorkerDefinition<S, DB> {
  /** Settings, over the environment's (`TEMPORAL_ADDRESS`, `DATABASE_URL`, …), or a configuration already loaded. @defaultValue the environment's */
  config?: Config | ConfigOverrides;
  /**
   * The job types this process serves (it polls their task queues; types that share a queue are
   * served together). @defaultValue `--types` / `WORKER_JOB_TYPES`, else every type of the catalog
   */
  types?: readonly string[];
  /** Write the definition's demo data (`database.seed`), as `npm start` does on its own dev server. @defaultValue false */
  seed?: boolean;
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
 * The queues a worker of these types serves, checked against the catalog: those of the chosen
 * types, and the shared queue whenever no worker of another choice would serve it: when it is one
 * of theirs, or when the catalog has no type on it (its DLQs, windows and limiter then run beside
 * the worker's own queues). A worker limited to types of their own queues, in a catalog with types
 * on the shared queue, leaves it to the workers of those types, which serve it.
 */
export function servedQueues(options: Pick<CreateWorkerOptions, 'catalog' | 'types'>, config: Config): QueuePlan[] {
  const { catalog } = options;
  const wanted = options.types ?? config.workerJobTypes ?? catalog.types;
  const unknown = wanted.filter((t) => !catalog.has(t));
  if (unknown.length > 0) {
    throw new ConfigError([{ path: '--types / WORKER_JOB_TYPES', message: `unknown job type ${unknown.map((t) => `"${t}"`).join(', ')} (known: ${catalog.types.join(', ')})` }]);
  }
  const chosen = new Set(wanted);
  return planQueues(config.taskQueue, catalog.definitions).filter((p) => p.types.some((t) => chosen.has(t)) || (p.shared && p.types.length === 0));
}

/**
 * Opens the jobs database (when the definition declares one) and migrates it, connects to Temporal
 * and creates one worker per task queue that serves the chosen job types, each with its queue's
 * concurrency and rate limit. Every worker registers every workflow and activity, the DLQ's
 * included: a queue may hold jobs of a type that has since moved to a queue of its own, and those
 * still run where they were started.
 */
export async function createWorker<S extends PayloadSchemas, DB>(options: CreateWorkerOptions<S, DB>): Promise<CreatedWorker> {
  const config = resolveConfig(options.config);
  const plans = servedQueues(options, config);
  const served = [...new Set(plans.flatMap((p) => p.types))];
  options.checkSettings?.(config, { types: served, chosen: options.types ?? config.workerJobTypes, logger: Runtime.instance().logger });
  checkWorkflowExports(options.workflowsPath, options.catalog);
  // Loaded only when configured: off, no OpenTelemetry module is loaded and no interceptor installed.
  const tracing = workerTracing();
  if (tracing) Runtime.instance().logger.info(`worker:tracing — spans go by ${tracingTarget()}`, { target: tracingTarget() });
  const opened: { close(): Promise<void> }[] = [];
  if (tracing) opened.push({ close: () => tracing.flush() });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's own tables type it
  let db: Kysely<any> | undefined;
  try {
    if (options.database) {
      db = openDatabase(config.databaseUrl);
      opened.push({ close: () => db!.destroy() });
      try {
        await migrateToLatest(db, options.database.migrations);
        if (options.seed) await options.database.seed?.(db);
      } catch (err) {
        throw new Error(`cannot prepare the jobs database ${redactDatabaseUrl(config.databaseUrl)} (DATABASE_URL): ${describeError(err)}`, { cause: err });
      }
    }
    const connectionConfig = connectionOptions(config);
    const connection = await NativeConnection.connect(connectionConfig).catch((err: unknown) => {
      throw new UnreachableError(connectionConfig.address, err);
    });
    opened.push(connection);
    // The dead-letter hand-off and redrives start workflows, which needs a client connection too.
    const clientConnection = await Connection.connect(connectionConfig);
    opened.push(clientConnection);
    await assertNamespace(clientConnection, config.namespace, connectionConfig.address);
    // Registers the search attributes the namespace lacks, and waits until they are listed, before
    // any worker polls: the server refuses to start a job whose search attributes it lacks.
    await ensureSearchAttributes(clientConnection, config.namespace, { logger: Runtime.instance().logger });
    const dataConverter = dataConverterFor(config);
    const untracedClient = new Client({ connection: clientConnection, namespace: config.namespace, dataConverter });
    const client = tracing ? new Client({ connection: clientConnection, namespace: config.namespace, dataConverter, interceptors: { workflow: tracing.clientInterceptors } }) : untracedClient;
    // Before any worker polls: a queue's first tasks are already held to its rate per key.
    await applyRatePerKey(client, plans, Runtime.instance().logger);
    const given = typeof options.activities === 'function' ? await options.activities({ db, client, config, logger: Runtime.instance().logger } as ActivityContext<DB>) : (options.activities ?? {});
    const dependencies = planDependencies(config.taskQueue, options.catalog.definitions.filter((d) => served.includes(d.type))).map((p) => (options.concurrency ? { ...p, concurrency: options.concurrency } : p));
    const breakers = new DependencyBreakers(client, config.taskQueue, dependencies, Runtime.instance().logger);
    // Running before the first failure: its first report then finds it on a worker, not starting.
    await breakers.ensureRunning();
    const library = libraryWorkerOptions(given, { client, taskQueue: config.taskQueue, catalog: options.catalog, tracing, breakers });
    // Bundled once for all the queues' workers.
    // The library's workflows are added to the team's module (workflow-entry.ts).
    const workflowBundle = await withLibraryWorkflows(options.workflowsPath, (entry) => bundleWorkflowCode({ ...entry, ...libraryBundleOptions(tracing, dataConverter), logger: Runtime.instance().logger }));
    const heavy = heavyModulesIn(workflowBundle.code);
    if (heavy.length > 0) {
      Runtime.instance().logger.warn(
        `worker:heavy-workflow-imports — the workflow bundle of ${options.workflowsPath} contains ${heavy.join(', ')}, which the SDK evaluates again for every job (keep payload schemas out of workflows and job definitions: import their types only)`,
        { packages: heavy },
      );
    }
    const workers: Worker[] = [];
    for (const plan of plans) {
      workers.push(
        await Worker.create({
          connection,
          namespace: config.namespace,
          workflowBundle,
          dataConverter,
          ...library,
          // Cache and eager-dispatch settings, measured by `npm run bench` (docs/performance.md).
          ...workerTuning,
          ...sandboxTimeoutOption,
          ...heartbeatThrottleOption,
          ...queueWorkerOptions(plan, options),
          // On SIGINT/SIGTERM the worker stops polling, lets in-flight activities finish for this long,
          // then cancels them; Temporal retries cancelled attempts on another worker.
          shutdownGraceTime: config.shutdownGraceTime as StringValue,
        }),
      );
    }
    // Each dependency's steps run on its own queue, through its slot gate (src/activity-kit/breaker-gate.ts).
    for (const dependency of dependencies) {
      workers.push(await Worker.create({ connection, namespace: config.namespace, dataConverter, ...library, ...heartbeatThrottleOption, ...dependencyWorkerOptions(dependency, breakers.gate(dependency.name)), shutdownGraceTime: config.shutdownGraceTime as StringValue }));
    }
    const close = async () => {
      for (const c of opened.reverse()) await c.close();
    };
    return { workers, plans, dependencies, db, client, untracedClient, config, close };
  } catch (err) {
    for (const c of opened.reverse()) await c.close().catch(() => {});
    throw err;
  }
}
