import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Logger } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { recordJobAttempt } from '../activity-kit/job-attempt';
import { attemptFailure, logAttempt } from '../activity-kit/retry-schedule';
import type { JobDefinition } from '../catalog/define-job';

/** Which job a step runs for in {@link runStep}. */
export interface StepRunOptions {
  /** The job ID. @defaultValue a fresh `test-job-<uuid>` */
  jobId?: string;
  /**
   * The step's job type. With {@link preset}, a failure is what the worker makes of it: masked,
   * logged and given the preset's `nextRetryDelay` for this attempt. @defaultValue none: the
   * activity's own error, job type `test`
   */
  definition?: JobDefinition;
  /** The job execution, the ledger's key: give the same one to run a retry of the same execution. @defaultValue a fresh UUID */
  execution?: string;
  /** The attempt's number. @defaultValue 1 */
  attempt?: number;
  /** The preset the step runs under (`currentJob().preset`), whose retry schedule applies with {@link definition}. @defaultValue unset */
  preset?: string;
  /** Where the activity's log lines go. @defaultValue nowhere */
  logger?: Logger;
}

const quiet: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * Runs one activity as an attempt of a job's step would run, outside any worker: `currentJob()`,
 * `runOnce(db, step, …)` and the attempt number are those of the options; with a definition and
 * a preset, a failure carries the schedule's delay, as the worker's interceptor gives it.
 */
export function runStep<A extends unknown[], R>(activity: (...args: A) => Promise<R>, args: A, options: StepRunOptions = {}): Promise<R> {
  const job = { ...options, jobId: options.jobId ?? `test-job-${randomUUID()}`, execution: options.execution ?? randomUUID() };
  const environment = new MockActivityEnvironment({ attempt: options.attempt ?? 1, workflowExecution: { workflowId: job.jobId, runId: job.execution } }, { logger: options.logger ?? quiet });
  return environment.run(asJobStep(activity, job), ...args);
}

/**
 * The activity, as a step of the options' job: for a `MockActivityEnvironment` of a test's own
 * (one it cancels, say), `env.run(asJobStep(syncPage, { jobId }), input)`.
 */
export function asJobStep<A extends unknown[], R>(activity: (...args: A) => Promise<R>, options: StepRunOptions = {}): (...args: A) => Promise<R> {
  const { definition, preset } = options;
  const job = {
    jobId: options.jobId ?? `test-job-${randomUUID()}`,
    jobType: definition?.type ?? 'test',
    execution: options.execution ?? randomUUID(),
    headed: true,
    ...(preset !== undefined ? { preset } : {}),
  };
  return async (...given: A) => {
    const context = Context.current();
    recordJobAttempt(context, { ...job, attempt: context.info.attempt });
    if (!definition || preset === undefined) return activity(...given);
    logAttempt(context, definition, preset);
    try {
      return await activity(...given);
    } catch (err) {
      throw attemptFailure(context, definition, preset, given[0], err);
    }
  };
}
