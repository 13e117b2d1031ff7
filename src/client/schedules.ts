import { randomUUID } from 'node:crypto';
import { isGrpcServiceError, ScheduleAlreadyRunning, ScheduleNotFoundError as TemporalScheduleNotFound, type Client, type ScheduleHandle, type ScheduleOptionsStartWorkflowAction, type ScheduleSummary as TemporalScheduleSummary } from '@temporalio/client';
import type { Duration, Priority } from '@temporalio/common';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import { msToNumber } from '../shared/sdk-internals';
import type { z } from 'zod';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import { NoCatalogError } from '../catalog/catalog-error';
import type { JobDefinition } from '../catalog/define-job';
import { InvalidOptionError, ScheduleExistsError, ScheduleNotFoundError, type FieldIssue } from '../shared/errors';
import { jobIdPattern, maxJobIdLength } from '../shared/limits';
import { jobStartOptions } from '../catalog/start-job';
import { jobPauseMemoKey } from '../catalog/job-pause';
import { readJobPause } from '../catalog/read-pause';
import { jobFairness } from '../catalog/fairness';
import { validateOptions, validatePayload } from '../catalog/validate';

/** gRPC INVALID_ARGUMENT: the server refused the schedule's spec (e.g. a malformed cron line). */
const GRPC_INVALID_ARGUMENT = 3;

/** Temporal appends `-<RFC 3339 time>` (21 characters) to a scheduled run's workflow ID; the job ID must stay within its limit. */
export const maxScheduleIdLength = maxJobIdLength - 25;

/** Memo key that marks a schedule as a durable-jobs schedule, with what it runs. A stored contract. */
export const scheduleMemoKey = 'durableJobs';

/** What a schedule's memo records: what `jobctl schedule list` shows, and the deployment it belongs to. */
interface ScheduleMemo {
  type: string;
  /** The deployment's shared task queue. */
  taskQueue: string;
  cron?: string;
  every?: string;
  priority?: number;
}

/** Options of {@link JobSchedules.create}. Give exactly one of `cron` and `every`. */
export interface CreateScheduleOptions {
  /**
   * The schedule ID. Each run is a job whose ID is this plus the scheduled time, e.g.
   * `nightly-report-2026-01-01T02:00:00Z`, so a run is started once per scheduled time.
   * @defaultValue `<type>-schedule-<random UUID>`
   */
  id?: string;
  /** A cron line in UTC, e.g. `'0 2 * * *'` (also `@daily`, `@hourly`). @defaultValue unset */
  cron?: string;
  /** An interval, e.g. `'5m'`; at least 1s. @defaultValue unset */
  every?: Duration;
  /** Priority of each run, 1 (highest) to 5 (lowest), as in {@link EnqueueOptions.priority}. @defaultValue 3 */
  priority?: number;
  /** Create it paused (`unpause` starts it). @defaultValue false */
  paused?: boolean;
  /** Fairness key of each run, as in {@link EnqueueOptions.fairnessKey}. @defaultValue what the type derives from the payload */
  fairnessKey?: string;
  /** Its weight, as in {@link EnqueueOptions.fairnessWeight}. @defaultValue the type's, else 1 */
  fairnessWeight?: number;
}

/** One schedule, as `jobctl schedule list` shows it. */
export interface ScheduleSummary {
  id: string;
  type: string;
  /** The cron line, or `every <interval>`. */
  spec: string;
  paused: boolean;
  priority?: number;
  /** Why it was last paused or unpaused, as given to {@link JobSchedules.pause} or {@link JobSchedules.unpause}. @defaultValue unset */
  note?: string;
  /** When the next run is due (ISO 8601), unless paused. */
  nextRunAt?: string;
  /** When the most recent run was started (ISO 8601), if one was. */
  lastRunAt?: string;
  /** Job IDs of the most recent runs, oldest first. */
  recentJobs: string[];
}

/** What a schedule's visibility row and its description both say, as {@link summaryOf} reads it. */
type ScheduleView = Pick<TemporalScheduleSummary, 'scheduleId' | 'memo' | 'state' | 'info'>;

/** A schedule of this deployment as a {@link ScheduleSummary}; `undefined` for another deployment's (or not a job schedule). */
function summaryOf(s: ScheduleView, taskQueue: string): ScheduleSummary | undefined {
  const memo = s.memo?.[scheduleMemoKey] as ScheduleMemo | undefined;
  if (memo?.taskQueue !== taskQueue) return undefined;
  const summary: ScheduleSummary = {
    id: s.scheduleId,
    type: memo.type,
    spec: memo.cron ?? `every ${memo.every}`,
    paused: s.state.paused,
    priority: memo.priority,
    nextRunAt: s.state.paused ? undefined : s.info.nextActionTimes[0]?.toISOString(),
    recentJobs: s.info.recentActions.flatMap((a) => (a.action.type === 'startWorkflow' ? [a.action.workflow.workflowId] : [])),
  };
  if (s.state.note) summary.note = s.state.note;
  const last = s.info.recentActions.at(-1);
  if (last) summary.lastRunAt = last.takenAt.toISOString();
  return summary;
}

/**
 * Recurring jobs through Temporal Schedules. Each run is an ordinary job, started with the same
 * workflow, task queue, memo and search attributes as `enqueue`, so `jobctl list`, `status` and the
 * DLQ treat it like any other.
 */
export class JobSchedules<S extends PayloadSchemas = PayloadSchemas> {
  constructor(
    private readonly temporal: Client,
    /** The deployment's shared task queue: schedules of other deployments are not listed. */
    private readonly taskQueue: string,
    /** The job types, to validate what a schedule starts; without it `create` is refused. */
    private readonly catalog?: Catalog<S>,
  ) {}

  /** Validates the payload and options, then creates the schedule. Throws {@link ScheduleExistsError} for a used ID. */
  async create<T extends keyof S & string>(type: T, payload: z.input<S[T]>, options: CreateScheduleOptions): Promise<{ id: string }> {
    if (!this.catalog) throw new NoCatalogError('creating a schedule');
    const parsed = validatePayload(this.catalog, type, payload, 'refuse');
    const definition = this.catalog.definition(type)!;
    const { id, every, priority } = validateScheduleOptions(definition, options);
    const fairness = jobFairness(definition, parsed, options);
    const { workflowType, priority: jobPriority, ...start } = jobStartOptions({ definition, payload: parsed, taskQueue: this.taskQueue, priority, fairness });
    // Created while its type is paused: its runs start knowing it, as those of the type's other schedules do.
    const paused = await readJobPause(this.temporal, this.taskQueue, type);
    if (paused) start.memo = { ...start.memo, [jobPauseMemoKey]: paused };
    const memo: ScheduleMemo = { type, taskQueue: this.taskQueue, cron: options.cron, every: options.every === undefined ? undefined : String(options.every), priority };
    // The SDK sends an action's priority but its type omits the field (1.24).
    const action = { type: 'startWorkflow', workflowType, workflowId: id, ...start, priority: jobPriority } as ScheduleOptionsStartWorkflowAction<never> & { priority?: Priority };
    try {
      await this.temporal.schedule.create({
        scheduleId: id,
        spec: options.cron !== undefined ? { cronExpressions: [options.cron] } : { intervals: [{ every: every! }] },
        action,
        memo: { [scheduleMemoKey]: memo },
        state: { paused: options.paused ?? false, note: options.paused ? 'created paused' : undefined },
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw new ScheduleExistsError(id);
      const missing = missingSearchAttributeIn(err, this.temporal.options.namespace);
      if (missing) throw missing;
      // The SDK checks a cron line's fields (TypeError), the server the rest (INVALID_ARGUMENT).
      const refused = (err instanceof TypeError && options.cron !== undefined) || (isGrpcServiceError(err) && err.code === GRPC_INVALID_ARGUMENT);
      if (refused) throw new InvalidOptionError([{ path: options.cron !== undefined ? 'cron' : 'every', message: (isGrpcServiceError(err) && err.details) || (err as Error).message }]);
      throw err;
    }
    return { id };
  }

  /** This deployment's schedules, by ID, from Temporal's visibility store (a change shows within a second or so). */
  async list(): Promise<ScheduleSummary[]> {
    const rows: ScheduleSummary[] = [];
    for await (const s of this.temporal.schedule.list()) {
      const summary = summaryOf(s, this.taskQueue);
      if (summary) rows.push(summary);
    }
    return rows.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** One schedule as it is now (read from the schedule itself, not visibility). Throws {@link ScheduleNotFoundError} for an ID this deployment lacks. */
  async get(id: string): Promise<ScheduleSummary> {
    try {
      const summary = summaryOf(await this.temporal.schedule.getHandle(id).describe(), this.taskQueue);
      if (summary) return summary;
    } catch (err) {
      if (!(err instanceof TemporalScheduleNotFound)) throw err;
    }
    throw new ScheduleNotFoundError(id);
  }

  /** Stops starting runs until {@link unpause}; runs already started go on. */
  async pause(id: string, note = 'paused with jobctl'): Promise<void> {
    await (await this.handle(id)).pause(note);
  }

  /** Starts runs again from the next scheduled time (missed times are not made up). */
  async unpause(id: string, note = 'unpaused with jobctl'): Promise<void> {
    await (await this.handle(id)).unpause(note);
  }

  /** Deletes the schedule; runs already started go on. */
  async delete(id: string): Promise<void> {
    await (await this.handle(id)).delete();
  }

  /** Starts one run now, besides the scheduled ones (its job ID carries the time of the trigger). */
  async trigger(id: string): Promise<void> {
    await (await this.handle(id)).trigger();
  }

  /** The handle of one of this deployment's schedules; throws {@link ScheduleNotFoundError} otherwise. */
  private async handle(id: string): Promise<ScheduleHandle> {
    const handle = this.temporal.schedule.getHandle(id);
    try {
      const description = await handle.describe();
      const memo = description.memo?.[scheduleMemoKey] as ScheduleMemo | undefined;
      if (memo?.taskQueue !== this.taskQueue) throw new ScheduleNotFoundError(id);
      return handle;
    } catch (err) {
      if (err instanceof TemporalScheduleNotFound) throw new ScheduleNotFoundError(id);
      throw err;
    }
  }
}

/** Checks a schedule's ID, spec and priority; throws {@link InvalidOptionError} naming each bad one. */
function validateScheduleOptions(definition: JobDefinition, options: CreateScheduleOptions): { id: string; every?: number; priority?: number } {
  const issues: FieldIssue[] = [];
  const { type } = definition;
  const { id = `${type}-schedule-${randomUUID()}`, cron, every } = options;
  if (definition.idempotencyKey) {
    issues.push({ path: 'type', message: `${type} derives its job ID from the payload, so every run would be the same job; it cannot be scheduled` });
  }
  if (typeof id !== 'string' || id.length > maxScheduleIdLength || !jobIdPattern.test(id)) {
    issues.push({ path: 'id', message: `must be 1 to ${maxScheduleIdLength} characters of A-Z, a-z, 0-9 and . _ : @ / + = -` });
  }
  if ((cron === undefined) === (every === undefined)) issues.push({ path: 'cron, every', message: 'give exactly one of them' });
  if (cron !== undefined && (typeof cron !== 'string' || !/^(@\w+|(\S+\s+){4,6}\S+)$/.test(cron.trim()))) {
    issues.push({ path: 'cron', message: `must be a cron line of 5 to 7 fields, e.g. "0 2 * * *", or @daily; got ${JSON.stringify(cron)}` });
  }
  let everyMs: number | undefined;
  if (every !== undefined) {
    try {
      everyMs = msToNumber(every);
    } catch {
      everyMs = Number.NaN;
    }
    if (!(everyMs >= 1000)) issues.push({ path: 'every', message: `must be a duration of at least 1s, e.g. 5m; got ${JSON.stringify(every)}` });
  }
  let priority: number | undefined;
  try {
    priority = validateOptions({ priority: options.priority, fairnessKey: options.fairnessKey, fairnessWeight: options.fairnessWeight }).priority;
  } catch (err) {
    if (!(err instanceof InvalidOptionError)) throw err;
    issues.push(...err.issues);
  }
  if (issues.length > 0) throw new InvalidOptionError(issues);
  return { id, every: everyMs, priority };
}
