import { ActivityFailure, ApplicationFailure, ContinueAsNew, type ActivityInterfaceFor } from '@temporalio/workflow';
import { jobActivities } from './job-activities';
import type { JobDefinition } from '../catalog/define-job';
import { trackJob, type JobProgress, type JobState } from './job-state';
import { Saga } from './saga';

/** Options of {@link JobRun.step}. */
export interface StepOptions {
  /**
   * Undoes the step, e.g. `() => releaseQuota(payload)` with an activity of the definition's
   * compensation preset. Registered when the step succeeds, and when it fails in a way that may
   * have taken effect (it ran out of attempts, timed out or was cancelled): a non-retryable failure
   * means the step took none (it threw inside its transaction, which rolled back). When the job
   * then fails or is cancelled, the registered undos run newest first. Each must be a no-op for
   * an effect that never happened.
   */
  undo?: () => Promise<unknown>;
}

/** What a job's workflow body is given by {@link runJob}. */
export interface JobRun<TStep extends string = string, TPreset extends string = string> {
  /**
   * The activities the job's steps call, under one of its presets (`jobActivities` with the
   * preset name checked by the compiler): `const { charge } = job.activities<Activities>('charge')`.
   */
  activities<A extends object>(preset: TPreset): ActivityInterfaceFor<A>;
  /**
   * Runs one of the job's declared steps: the record shows it as the current step, counts the
   * attempts of the preset its activity runs under, and moves the progress over the declared steps
   * on once it succeeds. See {@link StepOptions.undo}.
   */
  step<T>(name: TStep, run: () => Promise<T>, options?: StepOptions): Promise<T>;
  /** Registers an undo now, before its step has run: for work that may leave effects before it succeeds (a report's temporary files). */
  undo(step: TStep, undo: () => Promise<unknown>): void;
  /** Reports progress inside a step (a report's rows, a sync's pages): `jobctl status` and the console show it. */
  progress(progress: JobProgress): void;
  /** The state the record is read from, for what a step does not set (a continued run's number). */
  readonly state: JobState;
}

/**
 * Runs one job of `definition`: reports its state (`jobctl status`, the console, the DLQ read it),
 * runs `body` with its steps, and, when the body fails or the job is cancelled, undoes the steps
 * that took effect, newest first, before the failure goes on to the DLQ. The record then names the
 * step that failed and its attempts, not those of its undo. Call it once, as the workflow's return:
 *
 * ```ts
 * export function chargeWorkflow(payload: ChargePayload) {
 *   return runJob(chargeJob, async (job) => {
 *     const { reserveInvoice, voidInvoice, chargeCard } = job.activities<Activities>('step');
 *     const invoice = await job.step('reserve', () => reserveInvoice(payload), { undo: () => voidInvoice(payload) });
 *     return job.step('charge', () => chargeCard(payload));
 *   });
 * }
 * ```
 */
export async function runJob<T, TStep extends string, TPreset extends string>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload
  definition: JobDefinition<any, string, TPreset, TStep>,
  body: (job: JobRun<TStep, TPreset>) => Promise<T>,
  initial: Partial<JobState> = {},
): Promise<T> {
  const steps = definition.steps ?? [];
  const stepsProgress = steps.length > 1 ? { progress: { done: 0, total: steps.length, unit: 'steps' } } : {};
  const state = trackJob(definition, { ...stepsProgress, ...initial });
  const saga = new Saga(state);
  const job: JobRun<TStep, TPreset> = {
    state,
    activities: <A extends object>(preset: TPreset) => jobActivities<A, TPreset>(definition, preset),
    progress: (progress) => void (state.progress = progress),
    undo: (step, undo) => saga.add(step, undo),
    async step(name, run, options = {}) {
      state.step = name;
      try {
        const result = await run();
        if (options.undo) saga.add(name, options.undo);
        const index = steps.indexOf(name);
        if (steps.length > 1 && index >= 0) state.progress = { done: index + 1, total: steps.length, unit: 'steps' };
        return result;
      } catch (err) {
        if (options.undo && !tookNoEffect(err)) saga.add(name, options.undo);
        throw err;
      }
    },
  };
  try {
    return await body(job);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // The undos run under their own preset; the record then reads the failed step's again.
    const failedPreset = state.preset;
    await saga.compensate();
    state.preset = failedPreset;
    throw err;
  }
}

/** Whether a step's failure says it took no effect: its activity failed non-retryably. */
function tookNoEffect(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable === true;
}
