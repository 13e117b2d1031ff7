// Workflow interceptors: the cross-cutting part of every job — its log events and metrics, its
// final state (in its memo where the record cannot read it otherwise), and the hand-off to the
// dead-letter queue — in one place instead of in each workflow.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  TemporalFailure,
  isCancellation,
  log,
  patched,
  upsertMemo,
  workflowInfo,
  type ActivityInput,
  type GetLogAttributesInput,
  type LocalActivityInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowOutboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { DeadLetterActivities } from '../activity-kit/dead-letter';
import { deadLetterPresets } from '../catalog/dead-letter';
import { createdAtFromMemo } from '../catalog/created-at';
import { presetOptions } from '../catalog/define-job';
import { jobMetrics } from '../shared/job-metrics';
import { countFinalStall, countJob, currentJobType, recordJobDuration, startJobReport } from './job-metrics';
import { currentJobState, jobStateMemoKey, type JobState } from './job-state';
import { releaseConcurrencySlot } from './concurrency-slot';
import { installPauseGate, passPauseGate } from './pause-gate';
import { presetTagOf } from './preset-tag';
import { jobHeaderName, jobHeaderPayload } from '../shared/job-header';
import { libraryActivities } from './library-activity-calls';
import { bareActivityType } from '../shared/library-activities';
import { jobProtocolOf } from '../shared/job-protocol';
import { outlineFromMemo } from '../catalog/job-outline';
import { completedState, lastScheduledStep, noteScheduledStep, sameState, type ScheduledStep } from './closed-state';

/** Activities a job calls that are not its steps: a pause does not hold them. */
const notSteps: readonly string[] = ['handOffToDeadLetter', 'releaseConcurrencySlot'];

const { handOffToDeadLetter } = libraryActivities<DeadLetterActivities>(presetOptions(deadLetterPresets.handOff));

class JobLifecycleInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const info = workflowInfo();
    // A job knows its type from its start (the JobType search attribute every job is started
    // with); the DLQ and other workflows have none and run without the job lifecycle.
    const type = startJobReport();
    if (type === undefined) return next(input);
    const fields = { jobId: info.workflowId, jobType: type, workflowId: info.workflowId, runId: info.runId };
    this.lifecycleV2 = hasJobLifecycle(info.memo);
    installPauseGate();
    // Metrics add no commands and are not emitted on replay, so they need no patch. A job's start
    // and completion are logged at debug: the metrics count them, and at info they were the larger
    // part of a healthy job's logging cost (issue 33 §2); what needs a person stays at info and up.
    if (info.continuedFromExecutionRunId === undefined) {
      log.debug('job:start', { ...fields, attempt: 1 });
      countJob(jobMetrics.started, type);
    }
    // Set once the job closes (not when it continues as new): then its concurrency slot goes back.
    let closed = false;
    try {
      const result = await next(input);
      closed = true;
      this.recordFinalState('completed');
      log.debug('job:completed', fields);
      countJob(jobMetrics.completed, type);
      recordJobDuration(type, 'completed');
      return result;
    } catch (err) {
      // Continuing as new is not an ending, and a plain Error is a bug that fails only the task (the
      // SDK retries it after a fix); neither is dead-lettered.
      if (err instanceof ContinueAsNew || !(err instanceof TemporalFailure)) throw err;
      closed = true;
      this.recordFinalState(isCancellation(err) ? 'cancelled' : 'failed');
      const cause = rootCause(err);
      const errorType = cause.type ?? 'unknown';
      if (isCancellation(err)) {
        log.info('job:cancelled', fields);
        countJob(jobMetrics.cancelled, type);
        recordJobDuration(type, 'cancelled');
        throw err;
      }
      countJob(jobMetrics.failed, type, { error_type: errorType });
      recordJobDuration(type, 'failed');
      if (!this.lifecycleV2) {
        log.info('job:failed', fields);
        throw err;
      }
      log.error('job:failed', { ...fields, errorType: cause.type, error: cause.message });
      // Compensation already ran inside the job's workflow; the hand-off must finish even if the
      // job is cancelled meanwhile, or the failure would be lost.
      const handedOff = await CancellationScope.nonCancellable(() =>
        handOffToDeadLetter({
          id: info.workflowId,
          type,
          runId: info.runId,
          payload: input.args[0],
          error: cause,
          failedActivityId: err instanceof ActivityFailure ? err.activityId : undefined,
          createdAt: jobCreatedAt(),
          // The job record reads the final state from here (the job writes no memo for it).
          state: currentJobState(),
        }),
      );
      log.warn('job:dead-lettered', { ...fields, errorType: cause.type, dlq: handedOff.dlqWorkflowId, fingerprint: handedOff.fingerprint });
      countJob(jobMetrics.deadLettered, type, { error_type: errorType });
      throw err;
    } finally {
      if (closed) await releaseConcurrencySlot();
    }
  }

  private lifecycleV2 = true;

  /** Writes the job's final state to its memo, unless the record reads it without (protocol 3, {@link readableAtClose}). */
  private recordFinalState(outcome: 'completed' | 'failed' | 'cancelled'): void {
    if (!this.lifecycleV2) return;
    const state = currentJobState();
    if (state && !readableAtClose(outcome, state)) upsertMemo({ [jobStateMemoKey]: state });
  }
}

/**
 * Whether the job record reads this final state without a memo: a failed job's goes to the DLQ in
 * the hand-off's input, which the history holds; a completed job's is what its start's outline and
 * last scheduled step predict (src/workflow-kit/closed-state.ts). Jobs started before protocol 3
 * (and a cancelled job) write it, as before.
 */
function readableAtClose(outcome: 'completed' | 'failed' | 'cancelled', state: JobState): boolean {
  const memo = workflowInfo().memo;
  if (jobProtocolOf(memo) < 3) return false;
  if (outcome === 'failed') return true;
  const outline = outlineFromMemo(memo);
  return outcome === 'completed' && outline !== undefined && sameState(completedState(outline, lastScheduledStep()), state);
}

/** The patch that marks a job run with its final-state memo and DLQ hand-off (starts before protocol 3). */
const lifecyclePatch = 'job-lifecycle-memo-and-dlq';

/**
 * Whether the job runs with its final-state memo and DLQ hand-off. Jobs started before both existed
 * replay without them (their histories have neither). Under protocol 2 and earlier a marker in the
 * job's first workflow task says so, with the search-attribute upsert the SDK adds to every patch:
 * two history events per job (issue 33). Protocol 3 starts always have the lifecycle, decided by
 * their start memo; a history of one that a worker of an earlier release began holds the marker
 * anyway, so a replay consumes it (patches are matched in order, and a later one, the pause gate's
 * or the concurrency slot's, must not meet this one). A replay asks for a marker but never writes
 * one, so the history's commands match whether or not it has the marker.
 */
function hasJobLifecycle(memo: Record<string, unknown> | undefined): boolean {
  if (jobProtocolOf(memo) < 3) return patched(lifecyclePatch);
  if (workflowInfo().unsafe.isReplayingHistoryEvents) patched(lifecyclePatch);
  return true;
}

/**
 * When the job was first enqueued, as far as the run knows: what a redrive carried in the memo, or
 * the time of the start event when this is the job's first run (not the run's first workflow task,
 * which a backlog delays). A continued run leaves it to the hand-off, which reads the first run.
 */
function jobCreatedAt(): string | undefined {
  const info = workflowInfo();
  const carried = createdAtFromMemo(info.memo);
  if (carried) return carried.toISOString();
  return info.continuedFromExecutionRunId === undefined ? info.startTime.toISOString() : undefined;
}

/** The job's own error: the first application or timeout failure under the activity wrapper. */
function rootCause(err: TemporalFailure): { type?: string; message: string } {
  for (let f: unknown = err; f instanceof TemporalFailure; f = f.cause) {
    if (f instanceof ApplicationFailure) return f.type ? { type: f.type, message: f.message } : { message: f.message };
    if (f.name === 'TimeoutFailure') return { type: 'timeout', message: f.message };
  }
  return { message: err.message };
}

/**
 * Gives every log line of a job's workflow (saga, steps) the job's ID and type, and counts the
 * stall that ended an activity's last attempt.
 */
class JobOutboundInterceptor implements WorkflowOutboundCallsInterceptor {
  readonly scheduleLocalActivity = scheduleLocalActivity;

  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    const jobType = currentJobType();
    return jobType ? next({ jobId: workflowInfo().workflowId, jobType, ...input }) : next(input);
  }

  async scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    const { headed, step } = withJobHeader(input);
    // A paused type schedules no step until it is resumed; its hand-off to the DLQ and the return of
    // its concurrency slot, both on its way out, are not steps.
    const paused = currentJobType() && !notSteps.includes(bareActivityType(input.activityType)) ? passPauseGate(input.activityType) : undefined;
    if (paused) await paused;
    if (step) noteScheduledStep(step);
    try {
      return await next(headed);
    } catch (err) {
      countFinalStall(input, err);
      throw err;
    }
  }
}

/**
 * The pause gate of a local activity, before each attempt: the SDK schedules every retry of one
 * through here (after its backoff timer), so an attempt paused between retries keeps its number.
 * A retry that waited gets a fresh schedule-to-close window: the pause does not eat it.
 */
function scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
  const { headed } = withJobHeader(input);
  const paused = currentJobType() ? passPauseGate(input.activityType) : undefined;
  if (!paused) return next(headed);
  return paused.then(() => next({ ...headed, originalScheduleTime: undefined }));
}

/**
 * A job's step, as scheduled: the job's state names its preset (the record counts that preset's
 * attempts), and its headers carry the job's execution and the preset, for the activity's retry
 * schedule and ledger key. Other activities (the DLQ's, a window's) pass unchanged. Returns the
 * step the header names, for the caller to note once the activity is scheduled.
 */
function withJobHeader<I extends ActivityInput | LocalActivityInput>(input: I): { headed: I; step?: ScheduledStep } {
  if (!currentJobType()) return { headed: input };
  const preset = presetTagOf(input.options);
  const state = currentJobState();
  if (preset !== undefined && state) state.preset = preset;
  // A step's activity names its step too: the record reads a completed job's last step from it.
  const step = preset !== undefined && state ? { step: state.step, preset } : undefined;
  const header = jobHeaderPayload({ execution: workflowInfo().firstExecutionRunId, ...(preset !== undefined ? { preset } : {}), ...step });
  return { headed: { ...input, headers: { ...input.headers, [jobHeaderName]: header } }, ...(step ? { step } : {}) };
}

/** Registered by the worker through `interceptors.workflowModules`. */
export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new JobLifecycleInterceptor()], outbound: [new JobOutboundInterceptor()] });
