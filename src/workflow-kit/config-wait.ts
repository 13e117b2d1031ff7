// A step that fails because its worker lacks a setting (`jobs:missing-config`, e.g. sync-data
// without SYNC_SOURCE_URL) is not the job's fault and no attempt of its should pay for it: the
// step's activity fails at once on it (it is non-retryable in every preset `jobActivities` runs),
// and the job waits, checking again on a slow schedule, until a worker that has the setting runs
// the step with its whole retry schedule ahead of it. Workflow code.
import { ActivityFailure, ApplicationFailure, condition, log, patched } from '@temporalio/workflow';
import { ErrorType } from '../shared/errors';
import { currentJobState, type ConfigWait } from './job-state';
import { RunLocal } from './run-local';

/** Marks the histories of jobs that wait on `jobs:missing-config`; older ones replay failing the step, as they ran. */
const configWaitPatch = 'wait-on-missing-config';

/** How long a job waits before each new check of its step: then every 15 minutes. */
export const configCheckDelaysMs: readonly number[] = [10_000, 30_000, 60_000, 300_000, 900_000];

/** How long a job waits for a setting in all before its step fails with `jobs:missing-config` (and is dead-lettered). */
export const configWaitLimitMs = 7 * 24 * 3600_000;

/** Thrown out of a step whose wait for a setting {@link stopConfigWaitWhen} ended: the job decides what stopping means. */
export class ConfigWaitStopped extends Error {
  override readonly name = 'ConfigWaitStopped';
}

/** The running job's reason to stop waiting, if it gave one. */
const stopWhen = new RunLocal<() => boolean>('configWaitStopWhen');

/**
 * Ends a wait for a setting as soon as `check` holds (e.g. a stop was requested): the step throws
 * {@link ConfigWaitStopped}, which the job's workflow must catch. Call once, at the top of the workflow.
 */
export function stopConfigWaitWhen(check: () => boolean): void {
  stopWhen.set(check);
}

/** The `jobs:missing-config` failure under an activity's failure, if that is why it failed. */
function missingConfig(err: unknown): ApplicationFailure | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  return cause instanceof ApplicationFailure && cause.type === ErrorType.MissingConfig ? cause : undefined;
}

/**
 * Runs one step: when it fails on a missing setting, waits and runs it again (a new activity with
 * its full retry schedule) until it runs, or until {@link configWaitLimitMs} has passed. A
 * cancellation of the job ends the wait like any other.
 */
export async function runWaitingForConfig<T>(step: string, run: () => Promise<T>): Promise<T> {
  const since = Date.now();
  for (let checks = 1; ; checks += 1) {
    try {
      return await run();
    } catch (err) {
      const missing = missingConfig(err);
      if (!missing || !patched(configWaitPatch)) throw err;
      const delay = configCheckDelaysMs[Math.min(checks - 1, configCheckDelaysMs.length - 1)]!;
      if (Date.now() + delay - since > configWaitLimitMs) throw err;
      const wait: ConfigWait = {
        error: { type: ErrorType.MissingConfig, message: missing.message },
        since: new Date(since).toISOString(),
        nextCheckAt: new Date(Date.now() + delay).toISOString(),
        checks,
      };
      const state = currentJobState();
      if (state) state.configWait = wait;
      log.warn('job:waiting-for-config', { activity: step, errorType: ErrorType.MissingConfig, error: missing.message, checks, nextCheckInMs: delay });
      const check = stopWhen.get();
      try {
        // A timer either way (the same command as a plain sleep); a stop ends it early.
        if (await condition(() => check?.() === true, delay)) throw new ConfigWaitStopped(`stopped while waiting for a setting (${missing.message})`);
      } finally {
        if (state) delete state.configWait;
      }
    }
  }
}

/** Wraps each function of an activity proxy in {@link runWaitingForConfig}. */
export function waitingForConfig<A extends object>(activities: A): A {
  return new Proxy(activities, {
    get(target, name, receiver) {
      const fn: unknown = Reflect.get(target, name, receiver);
      if (typeof fn !== 'function' || typeof name !== 'string') return fn;
      return (...args: unknown[]) => runWaitingForConfig(name, () => (fn as (...a: unknown[]) => Promise<unknown>)(...args));
    },
  });
}
