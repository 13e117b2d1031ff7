import type { WorkerOptions } from '@temporalio/worker';

/**
 * SQLite settings of the embedded dev server (`npm start`, `npm run bench`).
 *
 * `journal_mode=wal` with `synchronous=normal`: a commit appends to the write-ahead log without an
 * fsync; the log is synced at each checkpoint. A killed process (Ctrl-C, `kill -9`, OOM) loses
 * nothing: the WAL file is on disk. A power cut or kernel crash can roll back the transactions
 * committed since the last checkpoint: an enqueue the client saw succeed may vanish (the job never
 * runs), and a finished job may go back to its last durable state and run its step again (steps are
 * idempotent, see docs/guarantees.md). The database itself stays consistent. docs/performance.md
 * has the measured effect (about 2× on this machine's disk).
 */
export const devServerSqlitePragmas = ['journal_mode=wal', 'synchronous=normal'] as const;

/**
 * Dynamic config of the embedded dev server, beside src/shared/dev-server-config.ts (the new
 * matcher for priorities, one task-queue partition: a single-node server gains nothing from the
 * default four, and with one a waiting poller sees a new task at once). Eager workflow start lets a
 * client that shares the worker's connection have the first workflow task handed back in the start
 * response; eager activity execution does the same for a regular activity. Neither changes what is
 * recorded: an eagerly dispatched task that its worker loses times out and is retried as usual.
 */
export const devServerDynamicConfig = {
  'system.enableEagerWorkflowStart': true,
  // A regular activity scheduled by a workflow task goes straight back to the worker that completed
  // it (when that worker has a free slot) instead of through the task queue.
  'system.enableActivityEagerExecution': true,
} as const;

/** The `temporal server start-dev` arguments that apply {@link devServerSqlitePragmas} and {@link devServerDynamicConfig}. */
export function devServerTuningArgs(): string[] {
  return [
    ...devServerSqlitePragmas.flatMap((p) => ['--sqlite-pragma', p]),
    ...Object.entries(devServerDynamicConfig).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
  ];
}

/**
 * Slot, poller and cache settings of the jobs worker. Jobs are short and mostly wait on I/O, so the
 * limits are about the server, not this process's CPU: the SDK's defaults (40 workflow tasks, 100
 * activities, 10 pollers each) already keep a single dev server busy; what matters is that eager
 * activity dispatch stays on (an activity scheduled by a workflow task runs here without a round
 * trip through the task queue) and that the sticky cache is bounded, so memory does not grow with
 * the number of jobs. docs/performance.md shows what each setting changed.
 */
export const workerTuning = {
  /** Workflows kept in memory between their tasks; a finished job leaves the cache at once. @defaultValue 1000 */
  maxCachedWorkflows: 1000,
  /** Activity slots the worker may reserve while completing a workflow task, for eager dispatch. @defaultValue 3 */
  maxEagerActivityReservationsPerWorkflowTask: 3,
} as const satisfies Partial<WorkerOptions>;
