import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Logger } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { recordJobAttempt } from '../activity/job-attempt';

/** Which job a step runs for in {@link runStep}. */
export interface StepRunOptions {
  /** The job ID. @defaultValue a fresh `test-job-<uuid>` */
  jobId?: string;
  /** The job type. @defaultValue `test` */
  jobType?: string;
  /** The job execution, the ledger's key: give the same one to run a retry of the same execution. @defaultValue a fresh UUID */
  execution?: string;
  /** The attempt's number. @defaultValue 1 */
  attempt?: number;
  /** The preset the step runs under (see `currentJob().preset`). @defaultValue unset */
  preset?: string;
  /** Where the activity's log lines go. @defaultValue nowhere */
  logger?: Logger;
}

const quiet: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * Runs one activity as an attempt of a job's step would run, outside any worker: `currentJob()`,
 * `runOnce(db, step, …)` and the attempt number are those of the options. No retry schedule
 * applies (the worker's interceptor does that): the attempt's own error is what it throws.
 */
export function runStep<A extends unknown[], R>(activity: (...args: A) => Promise<R>, args: A, options: StepRunOptions = {}): Promise<R> {
  const attempt = options.attempt ?? 1;
  const job = {
    jobId: options.jobId ?? `test-job-${randomUUID()}`,
    jobType: options.jobType ?? 'test',
    execution: options.execution ?? randomUUID(),
    attempt,
    headed: true,
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
  };
  const environment = new MockActivityEnvironment({ attempt, workflowExecution: { workflowId: job.jobId, runId: job.execution } }, { logger: options.logger ?? quiet });
  return environment.run(async (...given: A) => {
    recordJobAttempt(Context.current(), job);
    return activity(...given);
  }, ...args);
}
