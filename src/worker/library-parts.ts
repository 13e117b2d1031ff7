// What durable-jobs adds to a team's workflows and activities, assembled once for the worker
// (createWorker) and the test kit (createJobTestWorker) alike: the library's activities beside the
// team's, the job's activity interceptors, the workflow interceptor modules bundled with the team's
// workflows, the failure converter that encryption needs, and with tracing on, the SDK's
// OpenTelemetry interceptors and sink.
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { BundleOptions, WorkerOptions } from '@temporalio/worker';
import { jobActivityInterceptors } from '../activity-kit/interceptors';
import { createLibraryActivities } from '../activity-kit/library-activities';
import type { Catalog } from '../catalog/catalog';
import { ConfigError } from '../shared/errors';
import { collidingActivityNames, libraryActivityNamespace, libraryActivityTypes } from '../shared/library-activities';
import { loadPart } from '../shared/optional-packages';
import { tracingConfigured } from '../shared/tracing-env';
import type { WorkerTracing } from './tracing';
import type { DependencyBreakers } from '../activity-kit/breakers';

/** The worker's tracing when it is configured (`OTEL_*`), started once per process; none otherwise, and no OpenTelemetry module loaded. */
export function workerTracing(): WorkerTracing | undefined {
  if (!tracingConfigured()) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is configured
  return loadPart('tracing', () => require('./tracing') as typeof import('./tracing')).startTracing();
}

/** The job's workflow interceptor module, bundled with every team's workflows. */
const jobInterceptorModule = require.resolve('../workflow-kit/interceptors');

/**
 * The library's workflow modules and the SDK's workflow API: loaded once per workflow sandbox and
 * shared by the workflows it runs, instead of evaluated again for each job (the SDK gives every
 * workflow its own copy of any other module). They keep nothing of a run at module scope (a run's
 * values are in src/workflow-kit/run-local.ts; test/workflow-kit/bundle-imports.test.ts fails on a
 * `let`, `var`, Map or Set at module scope in any module they reach). A team's own modules are not
 * among them: whether they keep state is theirs to know.
 */
export const sharedWorkflowModules: readonly string[] = [
  '@temporalio/workflow',
  require.resolve('../workflow-kit/index'),
  require.resolve('../workflow-kit/library-workflows'),
  jobInterceptorModule,
];

/** What the bundle of a team's workflows gets: the library's interceptors (after the SDK's tracing ones), the modules shared across workflows, and the failure converter of the data converter. */
export function libraryBundleOptions(tracing: WorkerTracing | undefined, dataConverter?: DataConverter): Pick<BundleOptions, 'workflowInterceptorModules' | 'preloadModules' | 'failureConverterPath'> {
  return {
    preloadModules: [...sharedWorkflowModules],
    // The SDK's tracing interceptors first, so that a job's RunWorkflow span holds its whole lifecycle.
    workflowInterceptorModules: [...(tracing?.workflowInterceptorModules ?? []), jobInterceptorModule],
    // Workflow code converts its own failures: with encryption on, it must use the same converter.
    ...(dataConverter?.failureConverterPath ? { failureConverterPath: dataConverter.failureConverterPath } : {}),
  };
}

/** Where the library's activities start and signal workflows, and what they check a redrive against. */
export interface LibraryPartsContext {
  catalog: Catalog;
  /** The shared task queue (the DLQ's). */
  taskQueue: string;
  /** The client of the DLQ hand-offs and redrives (traced when tracing is on). */
  client: Client;
  tracing?: WorkerTracing;
  /** The worker's side of its dependencies' breakers. @defaultValue none: attempts against a dependency report nothing */
  breakers?: DependencyBreakers;
}

/** A worker's activities (the team's and the library's), activity interceptors and sinks. */
export function libraryWorkerOptions(given: object, context: LibraryPartsContext): Required<Pick<WorkerOptions, 'activities' | 'interceptors'>> & Pick<WorkerOptions, 'sinks'> {
  refuseLibraryActivityNames(given);
  const { catalog, taskQueue, client, tracing, breakers } = context;
  return {
    activities: { ...given, ...createLibraryActivities({ client, taskQueue, catalog, tracing: tracing?.deadLetters }) },
    interceptors: { activity: [...(tracing?.activityInterceptors(catalog) ?? []), jobActivityInterceptors(catalog, { taskQueue, breakers })] },
    ...(tracing ? { sinks: tracing.sinks } : {}),
  };
}

/** Refuses a team's activity that has the name of one of the library's (see library-activities.ts). */
export function refuseLibraryActivityNames(activities: object): void {
  const taken = collidingActivityNames(activities);
  if (taken.length === 0) return;
  throw new ConfigError(
    taken.map((name) => ({
      path: `activities.${name}`,
      message: name.startsWith(libraryActivityNamespace)
        ? `is in durable-jobs' own namespace ("${libraryActivityNamespace}"): rename yours`
        : `is the name of one of durable-jobs' own activities (${libraryActivityTypes.join(', ')}): rename yours`,
    })),
  );
}
