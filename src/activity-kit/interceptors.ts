// Activity interceptors: the cross-cutting part of every attempt — the job's ID and type on each
// log line, failed-attempt and attempts metrics, and the diagnosis of an attempt whose worker
// stopped answering — in one place instead of in each activity.
import { scrubErrorChain } from '../catalog/sensitive';
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptors, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import type { Catalog } from '../catalog/catalog';
import { ErrorType } from '../shared/errors';
import { jobMetrics, stallErrorType, type JobMetric, type StallReason } from '../shared/job-metrics';
import { stallReason } from '../shared/stall';
import { keepAlive } from './keep-alive';
import { pauseRetryIfTypePaused } from './pause-on-failure';
import type { JobDefinition } from '../catalog/define-job';
import { readJobHeader } from '../shared/job-header';
import { isLibraryActivity } from '../shared/library-activities';
import { legacyExecution, recordJobAttempt, type JobAttempt } from './job-attempt';
import { attemptFailure, logAttempt, scheduledByWrapper } from './retry-schedule';
import { countsAgainst, type BreakerTurn, type DependencyBreakers } from './breakers';
import { takeTurn } from './breaker-turn';
import { presetOf } from '../catalog/define-job';

/** How long an attempt waits, at most, to learn how its predecessor ended before it gets on with its work. */
const diagnosisTimeoutMs = 2000;

/**
 * The activity interceptors of a catalog's jobs, registered by the worker through
 * `interceptors.activity`. An attempt's job type comes from the catalog's map of workflow types,
 * built once; activities of other workflows (the DLQ's) run without them.
 */
export function jobActivityInterceptors(catalog: Pick<Catalog, 'byWorkflowType'>, options: JobActivityInterceptorsOptions = {}): ActivityInterceptorsFactory {
  return (ctx) => {
    const definition = catalog.byWorkflowType(ctx.info.workflowType ?? '');
    return definition ? attemptInterceptors(ctx, definition, options.taskQueue, options.breakers) : {};
  };
}

/** Options of {@link jobActivityInterceptors}. */
export interface JobActivityInterceptorsOptions {
  /**
   * The deployment's shared task queue, where its types' pauses are recorded: an attempt that fails
   * while its type is paused is then not retried until the resume. @defaultValue unset (not checked)
   */
  taskQueue?: string;
  /** The worker's side of its dependencies' breakers: reports of the attempts of presets that name one. @defaultValue none */
  breakers?: DependencyBreakers;
}

function attemptInterceptors(ctx: Context, definition: JobDefinition, taskQueue: string | undefined, breakers: DependencyBreakers | undefined): ActivityInterceptors {
  const jobType = definition.type;
  let previousAttempt: StallReason | undefined;
  const inbound: ActivityInboundCallsInterceptor = {
    async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
      const { attempt } = ctx.info;
      const job = jobAttemptOf(ctx, definition, input);
      recordJobAttempt(ctx, job);
      if (attempt > 1) {
        previousAttempt = await previousStall(ctx);
        if (previousAttempt) {
          ctx.log.warn('job:stalled', { stall: previousAttempt, stalledAttempt: attempt - 1 });
          count(ctx, jobMetrics.stalled, jobType, { reason: previousAttempt });
          count(ctx, jobMetrics.attemptFailed, jobType, { error_type: stallErrorType(previousAttempt) });
        }
      }
      // After the diagnosis: the attempt's line names how its predecessor ended (previousAttempt).
      if (job.preset !== undefined) logAttempt(ctx, definition, job.preset);
      const dependency = breakers && job.preset !== undefined ? presetOf(definition, job.preset).dependency?.name : undefined;
      let turn: BreakerTurn = { admitted: false };
      const stopKeepAlive = keepAlive(ctx);
      try {
        if (dependency) turn = await takeTurn(ctx, breakers!, dependency, job.jobId);
        const result = await next(input);
        recordAttempts(ctx, jobType, 'completed');
        if (dependency) await breakers!.succeeded(dependency, job.jobId, turn);
        return result;
      } catch (err) {
        // A sensitive value the message quotes (a source echoing the token it refused) is masked
        // before the error reaches a log line, the history or the DLQ.
        scrubErrorChain(err, input.args[0], definition.sensitive);
        // A shutdown is not the attempt's failure: it is reported as such, and the next attempt
        // counts it as a stall (as it does timeouts, which this worker never sees).
        if (isWorkerShutdown(ctx)) throw workerShutdownFailure(attempt, err);
        // The step's failure waits its preset's delay before the next attempt.
        const failure = job.preset !== undefined && !scheduledByWrapper(ctx) ? attemptFailure(ctx, definition, job.preset, input.args[0], err) : err;
        // A cancelled job's attempt is not a failure either.
        if (!(failure instanceof CancelledFailure)) {
          count(ctx, jobMetrics.attemptFailed, jobType, { error_type: errorTypeOf(failure) });
          const plan = dependency ? breakers!.plan(dependency) : undefined;
          if (plan && countsAgainst(plan, failure, presetOf(definition, job.preset!).nonRetryableErrorTypes ?? [])) await breakers!.failed(plan.name, failure, job.jobId);
          else if (dependency) await breakers!.ended(dependency, job.jobId, turn);
          if (isLastAttempt(ctx, failure)) recordAttempts(ctx, jobType, 'failed');
          else if (taskQueue !== undefined) await pauseRetryIfTypePaused(ctx, taskQueue, jobType);
        }
        throw failure;
      } finally {
        stopKeepAlive();
      }
    },
  };
  return {
    inbound,
    outbound: {
      getLogAttributes: (attributes, next) => {
        const { workflowExecution } = ctx.info;
        const job = { jobId: workflowExecution?.workflowId, jobType, runId: workflowExecution?.runId };
        return next(previousAttempt ? { ...job, previousAttempt, ...attributes } : { ...job, ...attributes });
      },
    },
  };
}

/**
 * The job an attempt works for: from the header its workflow sent, or, for a step scheduled by a
 * workflow of an earlier release (no header), from its `{ jobId, execution, payload }` input and
 * the definition's main preset. The library's own activities (the DLQ hand-off, the concurrency
 * slot) run under no preset of the job's.
 */
function jobAttemptOf(ctx: Context, definition: JobDefinition, input: ActivityExecuteInput): JobAttempt {
  const { workflowExecution, activityType, attempt } = ctx.info;
  // A job's activity always has its workflow; the empty ID is for a stand-alone call only.
  const base = { jobId: workflowExecution?.workflowId ?? '', jobType: definition.type, attempt };
  const header = readJobHeader(input.headers);
  const declared = (name: string | undefined) => (name !== undefined && Object.hasOwn(definition.presets, name) ? name : undefined);
  if (header) return { ...base, execution: header.execution, preset: declared(header.preset), headed: true };
  const preset = isLibraryActivity(activityType) ? undefined : definition.mainPreset;
  return { ...base, execution: legacyExecution(input.args[0]) ?? workflowExecution?.runId ?? '', preset, headed: false };
}

/**
 * How the previous attempt ended, when it ended because its worker stopped answering: the pending
 * activity's last failure, read from the workflow's description. Diagnosis only, so a slow or
 * failed lookup never holds up or fails the attempt.
 */
async function previousStall(ctx: Context): Promise<StallReason | undefined> {
  const execution = ctx.info.workflowExecution;
  if (!execution) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const describe = ctx.client.workflow.getHandle(execution.workflowId, execution.runId).describe();
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), diagnosisTimeoutMs)));
    const description = await Promise.race([describe, timeout]);
    describe.catch(() => undefined);
    const pending = description?.raw.pendingActivities?.find((a) => a.activityId === ctx.info.activityId);
    return stallReason(pending?.lastFailure);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function count(ctx: Context, metric: JobMetric, jobType: string, tags: Record<string, string>): void {
  ctx.metricMeter.createCounter(metric.name, metric.unit, metric.description).add(1, { job_type: jobType, ...tags });
}

function recordAttempts(ctx: Context, jobType: string, outcome: 'completed' | 'failed'): void {
  const { name, unit, description } = jobMetrics.attempts;
  ctx.metricMeter.createHistogram(name, 'int', unit, description).record(ctx.info.attempt, { job_type: jobType, outcome });
}

/** The error type an attempt failed with: its ApplicationFailure type, else the error class name. */
export function errorTypeOf(err: unknown): string {
  if (err instanceof ApplicationFailure && err.type) return err.type;
  return err instanceof Error ? err.name : 'unknown';
}

/** Whether Temporal will not retry after this failure: non-retryable, or the policy's last attempt. */
function isLastAttempt(ctx: Context, err: unknown): boolean {
  const policy = ctx.info.retryPolicy;
  if (err instanceof ApplicationFailure && (err.nonRetryable || (err.type && policy?.nonRetryableErrorTypes?.includes(err.type)))) return true;
  return policy?.maximumAttempts !== undefined && policy.maximumAttempts > 0 && ctx.info.attempt >= policy.maximumAttempts;
}

/** Whether the SDK cancelled this attempt because the worker is stopping and its grace time ran out. */
function isWorkerShutdown(ctx: Context): boolean {
  const reason: unknown = ctx.cancellationSignal.aborted ? ctx.cancellationSignal.reason : undefined;
  return reason instanceof CancelledFailure && reason.message === 'WORKER_SHUTDOWN';
}

/**
 * The failure a shutdown leaves in the history: a retryable `jobs:worker-shutdown`, so that the
 * next attempt, `jobctl status` and the Web UI name the cause instead of a bare cancellation.
 */
function workerShutdownFailure(attempt: number, err: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: ErrorType.WorkerShutdown,
    message: `the worker shut down before attempt ${attempt} finished (its shutdown grace time ran out); another worker retries it`,
    cause: err instanceof Error ? err : undefined,
    nonRetryable: false,
  });
}
