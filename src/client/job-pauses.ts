import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import { NoCatalogError } from '../catalog/catalog-error';
import { jobPauseMemoKey, pauseRecordId, pauseRecordStartDelay, pauseRecordTaskQueue, pauseRecordWorkflowType, type JobPause } from '../catalog/job-pause';
import { taskQueueFor } from '../catalog/task-queues';
import { jobPauseCacheKey, readJobPause, readJobPauseCached, type JobPauseCache } from '../catalog/read-pause';
import { InvalidOptionError, UnknownJobTypeError } from '../shared/errors';
import { quoteQueryValue } from './job-list';
import { openJobsQuery, sweepOpenJobs } from './pause-sweep';
import { markSchedulesPaused } from './schedule-pause';

export type { JobPause };

/** Longest `reason` or `by` a pause keeps. */
const maxPauseTextLength = 200;

/** How long an enqueue trusts what it last read of a type's pause, in ms: a burst of enqueues reads it once. */
export const pauseCacheMs = 1000;

/** Options of {@link JobPauses.pause}. */
export interface PauseOptions {
  /** Why, shown by `jobctl stats` and the job record. @defaultValue unset */
  reason?: string;
  /** Who pauses (jobctl: JOBCTL_USER, else the OS user). @defaultValue unrecorded */
  by?: string;
  /**
   * How long to wait before the second sweep of the type's open jobs, in ms: it reaches the jobs
   * enqueued while the pause was being recorded (by clients that read the type as not paused), once
   * the visibility store lists them. @defaultValue 3000
   */
  settleMs?: number;
}

/** What {@link JobPauses.pause} did. */
export interface PauseResult {
  type: string;
  /** The pause in force: this one, or the earlier one if the type was already paused. */
  pause: JobPause;
  /** True when the type was already paused; its record is kept as it was. */
  alreadyPaused: boolean;
  /** Open jobs told of the pause (by either sweep). */
  signalled: number;
  /** The type's schedules whose runs now start knowing the pause (they keep firing; their runs wait). */
  schedules: number;
}

/** What {@link JobPauses.resume} did. */
export interface ResumeResult {
  type: string;
  /** The pause that ended, if the type was paused. */
  wasPaused?: JobPause;
  /** Open jobs told of the resume (by either sweep). */
  signalled: number;
  /** The type's schedules whose runs start unpaused again. */
  schedules: number;
}

/** A paused type, as {@link JobPauses.list} reports it. */
export interface PausedType extends JobPause {
  type: string;
}

function checkText(name: 'reason' | 'by', value: string | undefined): void {
  if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > maxPauseTextLength)) {
    throw new InvalidOptionError([{ path: name, message: `must be 1 to ${maxPauseTextLength} characters, got ${JSON.stringify(value)?.slice(0, 60)}` }]);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Pausing job types (`jobctl pause <type>`): while a type is paused its jobs are accepted and wait;
 * no attempt of theirs starts, fails or uses up a retry, and an attempt already running finishes.
 * The pause is a record on the Temporal server (a workflow that never runs, open while the type is
 * paused), so it holds across worker and server restarts and whether or not any worker is up; its
 * open jobs are told by signal, and a job enqueued while paused learns it from its start.
 */
export class JobPauses {
  private readonly cache: JobPauseCache = new Map();

  constructor(
    private readonly client: Client,
    /** The deployment's shared task queue. */
    private readonly taskQueue: string,
    /** The job types; pausing needs it, to refuse a type that does not exist. */
    private readonly catalog?: Catalog,
  ) {}

  /** Pauses a type: records the pause, then tells its open jobs. Pausing a paused type keeps its record and tells its jobs again. */
  async pause(type: string, options: PauseOptions = {}): Promise<PauseResult> {
    const queues = this.queuesOf(this.knownType(type, 'pause'));
    checkText('reason', options.reason);
    checkText('by', options.by);
    const asked: JobPause = { since: new Date().toISOString(), ...(options.reason ? { reason: options.reason } : {}), ...(options.by ? { by: options.by } : {}) };
    let pause = asked;
    let alreadyPaused = false;
    try {
      await this.client.workflow.start(pauseRecordWorkflowType, {
        workflowId: pauseRecordId(this.taskQueue, type),
        taskQueue: pauseRecordTaskQueue(this.taskQueue),
        args: [],
        memo: { [jobPauseMemoKey]: asked },
        startDelay: pauseRecordStartDelay,
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      alreadyPaused = true;
      pause = (await this.get(type)) ?? asked;
    }
    this.cache.delete(jobPauseCacheKey(this.taskQueue, type));
    const told = new Set<string>();
    let schedules = await markSchedulesPaused(this.client, this.taskQueue, type, pause);
    let signalled = await sweepOpenJobs(this.client, type, queues, pause, told);
    await sleep(options.settleMs ?? 3000);
    // Resumed meanwhile: the resume's own sweeps have the last word. The second round reaches the
    // jobs and the schedules the visibility store did not list yet.
    if (await this.get(type)) {
      schedules += await markSchedulesPaused(this.client, this.taskQueue, type, pause);
      signalled += await sweepOpenJobs(this.client, type, queues, pause, told);
    }
    return { type, pause, alreadyPaused, signalled, schedules };
  }

  /** Resumes a type: ends its pause record, then tells its open jobs, oldest first. Resuming a type that is not paused tells its jobs again and changes nothing else. */
  async resume(type: string, options: { by?: string; reason?: string; settleMs?: number } = {}): Promise<ResumeResult> {
    checkText('reason', options.reason);
    checkText('by', options.by);
    const wasPaused = await this.get(type);
    if (!wasPaused && this.catalog) this.knownType(type, 'resume');
    if (wasPaused) {
      const why = ['resumed', options.by ? `by ${options.by}` : undefined, options.reason ? `(${options.reason})` : undefined].filter(Boolean).join(' ');
      try {
        await this.client.workflow.getHandle(pauseRecordId(this.taskQueue, type)).terminate(why);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    } else if (!this.catalog) {
      throw new UnknownJobTypeError(type, (await this.list()).map((p) => p.type));
    }
    this.cache.delete(jobPauseCacheKey(this.taskQueue, type));
    const queues = this.queuesOf(type);
    const told = new Set<string>();
    let schedules = await markSchedulesPaused(this.client, this.taskQueue, type, undefined);
    let signalled = await sweepOpenJobs(this.client, type, queues, undefined, told);
    await sleep(options.settleMs ?? 3000);
    if (!(await this.get(type))) {
      schedules += await markSchedulesPaused(this.client, this.taskQueue, type, undefined);
      signalled += await sweepOpenJobs(this.client, type, queues, undefined, told);
    }
    return { type, wasPaused, signalled, schedules };
  }

  /** The type's pause, if it is paused: read from its record (strongly consistent, no worker needed). */
  get(type: string): Promise<JobPause | undefined> {
    return readJobPause(this.client, this.taskQueue, type);
  }

  /** What an enqueue reads: {@link get}, trusted for {@link pauseCacheMs}. */
  forEnqueue(type: string): Promise<JobPause | undefined> {
    return readJobPauseCached(this.cache, pauseCacheMs, this.client, this.taskQueue, type);
  }

  /** The paused types: each catalog type's record, or without a catalog every open record of the deployment. */
  async list(): Promise<PausedType[]> {
    if (this.catalog) {
      const found = await Promise.all(this.catalog.types.map(async (type) => ({ type, pause: await this.get(type) })));
      return found.flatMap(({ type, pause }) => (pause ? [{ type, ...pause }] : []));
    }
    const prefix = pauseRecordId(this.taskQueue, '');
    const query = `WorkflowType = ${quoteQueryValue(pauseRecordWorkflowType)} AND ExecutionStatus = 'Running' AND TaskQueue = ${quoteQueryValue(pauseRecordTaskQueue(this.taskQueue))}`;
    const types: string[] = [];
    for await (const w of this.client.workflow.list({ query })) if (w.workflowId.startsWith(prefix)) types.push(w.workflowId.slice(prefix.length));
    const found = await Promise.all(types.map(async (type) => ({ type, pause: await this.get(type) })));
    return found.flatMap(({ type, pause }) => (pause ? [{ type, ...pause }] : []));
  }

  /** Open jobs of a type, counted by the visibility store (a second or so behind): while it is paused, the jobs it holds. */
  async openJobs(type: string): Promise<number> {
    return (await this.client.workflow.count(openJobsQuery(type, this.queuesOf(type)))).count;
  }

  /** The task queues a type's jobs run on: its own queue, and the shared one (where it ran before it moved); unknown without its definition. */
  private queuesOf(type: string): string[] | undefined {
    const definition = this.catalog?.definition(type);
    return definition ? [...new Set([this.taskQueue, taskQueueFor(this.taskQueue, definition)])] : undefined;
  }

  private knownType(type: string, operation: string): string {
    if (!this.catalog) throw new NoCatalogError(operation);
    if (!this.catalog.definition(type)) throw new UnknownJobTypeError(type, this.catalog.types);
    return type;
  }
}
