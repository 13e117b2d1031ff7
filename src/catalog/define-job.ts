import type { ActivityOptions, Duration } from '@temporalio/common';
import type { NamespacedErrorType } from '../shared/errors';
import type { JobFairness } from './job-fairness';
import type { JobLimits } from './job-limits';
import type { JobDependency } from './dependency';
import { maxAttempts, toRetryPolicy, type RetryShape } from '../shared/retry';

/** Timeouts of one activity attempt. */
export interface JobTimeouts {
  /** Longest a single attempt may run before it is failed and retried. */
  startToClose: Duration;
  /** Longest the activity may take across all attempts and waits. @defaultValue unbounded */
  scheduleToClose?: Duration;
  /** Longest a long-running attempt may go without a heartbeat. @defaultValue no heartbeat required */
  heartbeat?: Duration;
}

/**
 * A named set of activity options: how one kind of step is retried and timed out. A job declares
 * its presets once; each step of its workflow picks one by name.
 */
export interface ActivityPreset {
  /** How failed attempts are retried. */
  retry: RetryShape;
  /** Error types that fail the step at once, whatever attempts remain: the library's (`jobs:*`) or the job's own (`acme:card-declined`). @defaultValue none */
  nonRetryableErrorTypes?: readonly NamespacedErrorType[];
  /** Timeouts of each attempt. */
  timeouts: JobTimeouts;
  /**
   * The outside service its steps call, e.g. `{ name: 'smtp' }`: its steps run on the dependency's
   * own task queue, and its circuit breaker, shared by every worker, stops attempts against it
   * while it is down (docs/guide/circuit-breakers.md). Regular activities only. @defaultValue none
   */
  dependency?: JobDependency;
}

/**
 * A task queue of a job type's own, with the limits its workers apply. Job types without one run on
 * the deployment's shared queue (`TEMPORAL_TASK_QUEUE`), where a flood of one type can hold every
 * worker slot while the others wait.
 */
export interface JobQueue {
  /**
   * The queue's name relative to the deployment: the job runs on `<TEMPORAL_TASK_QUEUE>:<name>`,
   * so deployments that share a namespace keep apart. A stored contract (workflows stay on the queue
   * they were started on): never rename it in place.
   */
  name: string;
  /**
   * Activity attempts one worker runs at once on this queue (`maxConcurrentActivityTaskExecutions`).
   * @defaultValue 100 (the Temporal SDK's default)
   */
  concurrency?: number;
  /**
   * Most activity attempts per second that the Temporal server hands out on this queue, summed over
   * all its workers (`maxTaskQueueActivitiesPerSecond`), e.g. a provider's send rate. @defaultValue unlimited
   */
  rateLimit?: number;
}

/**
 * Everything the client, worker, CLI and workflows need to know about one job type, except its
 * payload schema. Definitions are plain data without zod, so workflow code imports them; the
 * schema lives in `payloads/<type>.ts` (see `payloads/index.ts` for why).
 *
 * `TPayload` is the validated payload, which `idempotencyKey` and `summary` receive.
 */
export interface JobDefinition<TPayload = unknown, TType extends string = string, TPresets extends string = string, TSteps extends string = string> {
  /** The job type's name, e.g. `send-email`. A stored contract: never rename it in place. */
  type: TType;
  /** Name of the workflow function that runs this job type. Also stored in histories. */
  workflowType: string;
  /** One-line description, shown by `jobctl types`. */
  description: string;
  /** A task queue of its own, with per-worker concurrency and a rate limit. @defaultValue the shared queue, unlimited */
  queue?: JobQueue;
  /** The activity presets its steps choose from, by name. */
  presets: Record<TPresets, ActivityPreset>;
  /** The preset whose attempts the job record reports until the job names a step. */
  mainPreset: NoInfer<TPresets>;
  /** Ordered names of the job's steps, reported by `jobctl status`; `job.step(name, …)` in the workflow takes one of them. @defaultValue one step named after the type */
  steps?: readonly TSteps[];
  /**
   * The job ID used when the caller gives none, derived from the payload so that enqueueing the
   * same business operation twice runs it once. @defaultValue `<type>-<random UUID>`
   */
  idempotencyKey?(payload: TPayload): string;
  /** A one-line summary shown in the Temporal Web UI, e.g. `send-email to ada@…`; given the payload with its {@link sensitive} fields masked. @defaultValue the type */
  summary?(payload: TPayload): string;
  /**
   * Payload fields never shown: paths such as `token` or `auth.secret` (through an array, each
   * element's). jobctl, the console, job records, DLQ entries, audit records and failure messages
   * show them as `[sensitive]`; the job's own code gets the value. With ENCRYPTION_KEYS they are
   * encrypted at rest, as every payload is. @defaultValue none
   */
  sensitive?: readonly string[];
  /**
   * The job's fairness key and weight, derived from the payload, so that one tenant's flood does
   * not hold back the others' jobs: e.g. `sync-data` by `source`, `send-email` by recipient
   * domain. `EnqueueOptions.fairnessKey` / `fairnessWeight` override it; a redrive keeps the key the
   * job ran with. See {@link JobFairness}. @defaultValue none: every job shares the empty key
   */
  fairness?(payload: TPayload): JobFairness;
  /**
   * How the job's workflow runs its steps: `regular` activities go through the task queue (any
   * worker may run an attempt; heartbeats; each attempt is in the history), `local` activities run
   * inside the worker that runs the workflow task (about half the server work per job, see
   * docs/performance.md). Local suits short steps only: no heartbeats, an attempt is bounded by
   * `startToClose`, retries and `nextRetryDelay` still follow the preset, but an attempt that a
   * crash interrupts is retried only after the workflow task times out, and the job record counts
   * attempts from the workflow's markers rather than activity events. A semantic choice, so it is
   * declared here, per job type. @defaultValue 'regular'
   */
  activity?: 'regular' | 'local';
  /** Limits per key over all workers, e.g. `{ ratePerKey: 10 }` or `{ concurrencyPerKey: 2 }`. See {@link JobLimits}. @defaultValue none */
  limits?: JobLimits<TPayload>;
  /**
   * How a debounced enqueue (`enqueue(…, { debounce })`) of this type combines the payloads of one
   * window. `merge(previous, next)` folds them in enqueue order, in the worker (not in workflow
   * code), and its result is validated against the type's schema before the job starts; it must be
   * deterministic, as a retried start folds again. @defaultValue the window's last payload
   */
  debounce?: { merge?(previous: TPayload, next: TPayload): TPayload };
}

/**
 * Declares a job type; the identity function that lets TypeScript infer the type name, the preset
 * names and (from the parameter of `summary` or `idempotencyKey`) the payload type.
 */
export function defineJob<TPayload, const TType extends string, const TPresets extends string, const TSteps extends string = string>(
  definition: JobDefinition<TPayload, TType, TPresets, TSteps>,
): JobDefinition<TPayload, TType, TPresets, TSteps> {
  return definition;
}

/** The preset of that name; throws for a name the job does not declare. */
export function presetOf(definition: JobDefinition, name: string): ActivityPreset {
  const preset = (definition.presets as Record<string, ActivityPreset | undefined>)[name];
  if (!preset) throw new TypeError(`job type ${definition.type} declares no activity preset "${name}"`);
  return preset;
}

/** Attempts in all that one step of this job gets, under the named preset (the main one by default). */
export function jobMaxAttempts(definition: JobDefinition, preset: string = definition.mainPreset): number {
  return maxAttempts(presetOf(definition, preset).retry);
}

/** The activity options that a job's workflow passes to `proxyActivities` for the named preset. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload; the preset name is checked against the definition's
export function activityOptions<P extends string>(definition: JobDefinition<any, string, P>, preset: NoInfer<P> = definition.mainPreset): ActivityOptions {
  return presetOptions(presetOf(definition, preset));
}

/** The activity options of a preset. */
export function presetOptions(p: ActivityPreset): ActivityOptions {
  return {
    startToCloseTimeout: p.timeouts.startToClose,
    scheduleToCloseTimeout: p.timeouts.scheduleToClose,
    heartbeatTimeout: p.timeouts.heartbeat,
    retry: toRetryPolicy(p.retry, p.nonRetryableErrorTypes ?? []),
    // The attempt's heartbeat, timeout and cancellation all reach it only if the workflow waits for it.
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  };
}

/**
 * Why a redrive's patched payload may not run under the job's ID, if it may not: a job type whose
 * ID derives from its payload (`idempotencyKey`, e.g. `payment:<paymentId>`) must keep that key, or
 * the redriven job would do another operation's work under this one's ID (and block that
 * operation's own job). The DLQ workflow and the client both apply it.
 */
export function identityChange(definition: JobDefinition, before: unknown, after: unknown): string | undefined {
  const key = definition.idempotencyKey as ((payload: unknown) => string) | undefined;
  if (!key) return undefined;
  const was = key(before);
  const now = key(after);
  return was === now ? undefined : `a redrive must not change what the job ID derives from (${was} would become ${now}); enqueue that one as a job of its own`;
}
